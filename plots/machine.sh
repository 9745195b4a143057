# machine.sh: what this machine is, for the scripts that name results after it
# (sourced by bench.sh and chapters/run-commands.sh). Sets host_cpu, gpu,
# driver, cuda, machine (the GPU's name, or the CPU's where there is no GPU),
# slug (machine in lower case, words joined by '-': the results' file names),
# host (the host name), machine_id (what tells two machines apart when their
# names agree, as lab PCs cloned from one image do: the GPU's UUID, else
# systemd's /etc/machine-id, else the host name) and bench_name (make bench's
# file name for this machine unless BENCH_NAME gives one: the host's, then slug).
. plots/slug.sh # slug_of (machine.sh is sourced from the repository root)
host_cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ *//')
host_cpu=${host_cpu:-unknown}
gpu=none driver=none gpu_uuid=""
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
    driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
    gpu_uuid=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | head -1)
fi
host=$(hostname 2>/dev/null || uname -n)
machine_id=$gpu_uuid
[ -n "$machine_id" ] || machine_id=$(head -c 64 /etc/machine-id 2>/dev/null | tr -cd '0-9a-f')
[ -n "$machine_id" ] || machine_id=host:$host
nvcc=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
cuda=$("$nvcc" --version 2>/dev/null | grep -o 'release [0-9.]*' | cut -d' ' -f2)
cuda=${cuda:-none}
machine=$([ "$gpu" != none ] && echo "$gpu" || echo "$host_cpu")
slug=$(slug_of "$machine")
bench_name=$(echo "$host" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9._-]\{1,\}/-/g')-$slug
