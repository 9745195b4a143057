# slug.sh: slug_of NAME prints NAME as the results' file names hold it: lower
# case, anything in parentheses dropped, words joined by '-' ("NVIDIA H100 80GB
# HBM3" -> nvidia-h100-80gb-hbm3). Sourced by machine.sh (this machine's slug)
# and timeline.sh (the slug of the GPU a timeline file names).
slug_of() {
    echo "$1" | tr 'A-Z' 'a-z' | sed 's/([^)]*)//g; s/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//'
}
