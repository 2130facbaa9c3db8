# netns_lib.sh: sourced by the tests that need two "hosts" on one machine. It creates two
# network namespaces joined by a veth link, each with a link-local address that exists only
# on that link and, through a UTS namespace, its own hostname; ip netns exec makes each host
# resolve both hostnames to the link's addresses. It defines:
#   hosts[0..1]   the namespaces' names, which are also their hostnames
#   addr[0..1]    their addresses on the link
#   work          a scratch directory, removed at exit
#   $work/launch  a launcher for hydra's -launcher-exec that starts a proxy inside the named
#                 host's namespaces
#   in_host H CMD...   run CMD inside host H (network and UTS namespaces, hostname set)
# and removes everything at exit, even on failure. It exits 77 (skip) where namespaces
# cannot be made (not root, no iproute2 or unshare). Needs skip() from the caller.
command -v ip > /dev/null || skip "iproute2 (ip) is not installed"
command -v unshare > /dev/null || skip "unshare (util-linux) is not installed"
[ "$(id -u)" -eq 0 ] || skip "creating network namespaces needs root"

tag=mm$$
hosts=(${tag}a ${tag}b)          # namespace names double as hostnames
net=169.254.$(( (($$ / 256) % 200) + 20 )).$(( ($$ % 64) * 4 ))
addr=("${net%.*}.$(( ${net##*.} + 1 ))" "${net%.*}.$(( ${net##*.} + 2 ))")
work=$(mktemp -d)

cleanup() {
    for h in "${hosts[@]}"; do
        ip netns pids "$h" 2>/dev/null | xargs -r kill -9 2>/dev/null
        ip netns del "$h" 2>/dev/null
        rm -rf "/etc/netns/$h"
    done
    ip link del "${tag}va" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

for h in "${hosts[@]}"; do
    ip netns add "$h" 2>"$work/err" || skip "ip netns add failed: $(cat "$work/err")"
    ip -n "$h" link set lo up
    # ip netns exec bind-mounts /etc/netns/NAME/hosts over /etc/hosts: each host resolves
    # both hostnames to the link's addresses, and nothing else changes.
    mkdir -p "/etc/netns/$h"
    printf '127.0.0.1 localhost\n%s %s\n%s %s\n' "${addr[0]}" "${hosts[0]}" "${addr[1]}" \
        "${hosts[1]}" > "/etc/netns/$h/hosts"
done
ip link add "${tag}va" type veth peer name "${tag}vb" 2>"$work/err" ||
    skip "cannot create a veth pair: $(cat "$work/err")"
ip link set "${tag}va" netns "${hosts[0]}"
ip link set "${tag}vb" netns "${hosts[1]}"
ip -n "${hosts[0]}" addr add "${addr[0]}/30" dev "${tag}va"
ip -n "${hosts[1]}" addr add "${addr[1]}/30" dev "${tag}vb"
ip -n "${hosts[0]}" link set "${tag}va" up
ip -n "${hosts[1]}" link set "${tag}vb" up

# Hydra's rsh launcher runs: WRAPPER HOST "PROXY" ARGS...; the command is meant for a
# remote shell, hence sh -c.
cat > "$work/launch" <<WRAP
#!/bin/sh
host=\$1; shift
exec ip netns exec "\$host" unshare --uts sh -c "hostname \$host && exec \$*"
WRAP
chmod +x "$work/launch"


in_host() {
    local h=$1; shift
    ip netns exec "$h" unshare --uts sh -c "hostname $h && exec \"\$0\" \"\$@\"" "$@"
}
