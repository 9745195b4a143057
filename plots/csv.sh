# csv.sh: reading and writing CSV fields in bash, for demo.sh and bench.sh (sourced).

# Splits one CSV line (RFC 4180 quoting) into the array FIELDS.
split_csv() {
    local line=$1 field="" quoted=0 c i
    FIELDS=()
    for ((i = 0; i < ${#line}; i++)); do
        c=${line:i:1}
        if ((quoted)); then
            if [[ $c == '"' && ${line:i+1:1} == '"' ]]; then
                field+='"'
                ((i++))
            elif [[ $c == '"' ]]; then
                quoted=0
            else
                field+=$c
            fi
        else
            case $c in
            '"') quoted=1 ;;
            ,) FIELDS+=("$field"); field="" ;;
            *) field+=$c ;;
            esac
        fi
    done
    FIELDS+=("$field")
}

# A text field, quoted as RFC 4180 says when it holds a comma or a quote.
csv_text() {
    case $1 in
    *[,\"]*) printf '"%s"' "${1//\"/\"\"}" ;;
    *) printf '%s' "$1" ;;
    esac
}
