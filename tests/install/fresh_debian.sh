#!/usr/bin/env bash
# README's newcomer path on a fresh Debian 12 machine, checked for real: a
# minimal Debian 12 root made with debootstrap gets a clone of what is
# committed in this repository, and inside it, in a login shell of a user
# with sudo (as a standard Debian 12 install without a root password makes
# one), runs README's commands: the install (sudo bash
# examples/quickstart.sh), the first segmentation, and a segmentation from
# anti-aliased red and blue scribbles painted on a copy of the photo.
# Prints the wall time of each, and the quickstart's phases (apt-get update,
# download, unpack, build) apart. Then checks what README promises: flowcut
# on the PATH, --version and --help, the module importable by Debian's
# /usr/bin/python3, the library registered with ldconfig, the C example
# built with pkg-config alone giving the CLI's mask, the scribbles' mask
# close to the label seeds' one (IoU over 0.9), and every file in the
# checkout still the user's after sudo.
#
# Run it by hand, as root, on a Debian 12 host with network access:
#   sudo tests/install/fresh_debian.sh [REPO]      # REPO: default this checkout
# It is not part of tests/run.sh or CI, and must not be: it needs root
# (debootstrap, chroot, mounts), the network (Debian's packages) and a few
# minutes.
#
# The debootstrap root is made once and kept as a tarball, so that every run
# starts from the same pristine root (delete the tarball to make it again).
# Only committed files are tested: the root gets `git clone REPO`.
# Environment: FRESH_USER=root runs everything as root without sudo (an
# install with a root password has no sudo); FRESH_ROOT (default
# /tmp/flowcut-deb12), FRESH_TARBALL (default
# /tmp/flowcut-deb12-pristine.tar.gz), MIRROR (default
# http://deb.debian.org/debian), KEEP=1 keeps the root after the run
# (unmounted) for a look inside. Exit status 0 when every step and check
# passed.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=${1:-$(git -C "$HERE" rev-parse --show-toplevel)}
R=${FRESH_ROOT:-/tmp/flowcut-deb12}
TARBALL=${FRESH_TARBALL:-/tmp/flowcut-deb12-pristine.tar.gz}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
LOGDIR=$(mktemp -d /tmp/fresh_debian.XXXXXX)
die() { echo "fresh_debian: error: $*" >&2; exit 1; }
now() { echo "$EPOCHREALTIME"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, chroot and mounts need it)"
command -v debootstrap >/dev/null ||
    die "no debootstrap: apt-get -o DPkg::Lock::Timeout=600 install debootstrap"
command -v git >/dev/null || die "no git"
case "$R" in /tmp/?*) ;; *) die "FRESH_ROOT must be a folder under /tmp (it is deleted and recreated)" ;; esac

mounted_under() { awk -v r="$R" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/mounts; }
unmount_all() {
    local m
    for m in $(mounted_under | sort -r); do umount "$m" 2>/dev/null || umount -l "$m"; done
}
cleanup() {
    unmount_all
    # never delete the root while anything of the host is mounted in it
    if [ -z "$(mounted_under)" ] && [ "${KEEP:-0}" != 1 ]; then rm -rf "$R"; fi
}
trap cleanup EXIT

# 1. the pristine root: Debian 12 minbase with the sources of a standard
# install (main, updates, security)
if [ ! -s "$TARBALL" ]; then
    echo "fresh_debian: debootstrap bookworm from $MIRROR (once; kept in $TARBALL)"
    t=$(now)
    unmount_all
    [ -z "$(mounted_under)" ] || die "$R still has mounts"
    rm -rf "$R"
    debootstrap --variant=minbase bookworm "$R" "$MIRROR" >"$LOGDIR/debootstrap.log" 2>&1 ||
        { tail -n 20 "$LOGDIR/debootstrap.log" >&2; die "debootstrap failed (log: $LOGDIR/debootstrap.log)"; }
    security=${MIRROR%/debian}/debian-security
    cat >"$R/etc/apt/sources.list" <<EOF
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb $security bookworm-security main
EOF
    tar -C "$R" -czf "$TARBALL" .
    echo "fresh_debian: debootstrap took $(secs "$t" "$(now)") s"
fi

# 2. a fresh root from the tarball; the newcomer (a user in group sudo, as
# the Debian installer makes one, or root) with the committed repository in
# ~/flowcut
NEWCOMER=${FRESH_USER:-newcomer}
unmount_all
[ -z "$(mounted_under)" ] || die "$R still has mounts"
rm -rf "$R"
mkdir -p "$R"
tar -C "$R" -xzf "$TARBALL"
mount -t proc proc "$R/proc"
mount -t sysfs sysfs "$R/sys"
mount --bind /dev "$R/dev"
mount --bind /dev/pts "$R/dev/pts"
cp -L /etc/resolv.conf /etc/hosts "$R/etc/"
cp -L /etc/hostname "$R/etc/" 2>/dev/null || true
if [ "$NEWCOMER" = root ]; then
    HOMEDIR=/root SUDO=""
else
    t=$(now)
    chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
        sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends sudo" >"$LOGDIR/sudo.log" 2>&1 ||
        { tail -n 20 "$LOGDIR/sudo.log" >&2; die "installing sudo in the root failed"; }
    chroot "$R" useradd -m -s /bin/bash -G sudo "$NEWCOMER"
    # NOPASSWD only because nobody is there to type the password
    echo "$NEWCOMER ALL=(ALL) NOPASSWD:ALL" >"$R/etc/sudoers.d/newcomer"
    chmod 440 "$R/etc/sudoers.d/newcomer"
    HOMEDIR=/home/$NEWCOMER SUDO="sudo "
    echo "fresh_debian: user $NEWCOMER with sudo (installing sudo: $(secs "$t" "$(now)") s, not counted)"
fi
git clone -q "$REPO" "$R$HOMEDIR/flowcut"
echo "fresh_debian: fresh Debian 12 root in $R with $(git -C "$R$HOMEDIR/flowcut" log -1 --format='%h %s' | cut -c1-70)"
[ "$NEWCOMER" = root ] || chroot "$R" chown -R "$NEWCOMER:$NEWCOMER" "$HOMEDIR/flowcut"

# a newcomer's shell: a login shell (PATH from /etc/profile) in the clone
in_root() {
    chroot "$R" /usr/bin/env -i TERM=dumb LANG=C.UTF-8 /usr/sbin/runuser -l "$NEWCOMER" -c "cd ~/flowcut && $1"
}
FAILED=0
declare -a NAMES=() TIMES=()
# step NAME COMMAND: run it in the root, timed; output in $LOGDIR/NAME.log
step() {
    local name=$1 cmd=$2 t rc=0
    echo "fresh_debian: \$ $cmd"
    t=$(now)
    in_root "$cmd" >"$LOGDIR/$name.log" 2>&1 || rc=$?
    NAMES+=("$name") TIMES+=("$(secs "$t" "$(now)")")
    if [ $rc -ne 0 ]; then
        FAILED=1
        tail -n 20 "$LOGDIR/$name.log" | sed 's/^/    /'
        echo "fresh_debian: FAIL: $name (exit $rc, log $LOGDIR/$name.log)"
    else
        head -n 3 "$LOGDIR/$name.log" | sed 's/^/    /'
    fi
    return $rc
}
check() { # check WHAT COMMAND: untimed, prints its output
    local what=$1 out rc=0
    out=$(in_root "$2" 2>&1) || rc=$?
    if [ $rc -eq 0 ]; then echo "  ok    $what: $(head -n 1 <<<"$out" | cut -c1-90)"
    else FAILED=1; echo "  FAIL  $what (exit $rc):"; tail -n 10 <<<"$out" | sed 's/^/        /'; fi
}

# 3. README's commands, as a newcomer runs them (sudo only where the user is
# not root). The quickstart's output is timestamped to split its phases.
t0=$(now)
echo "fresh_debian: \$ ${SUDO}bash examples/quickstart.sh"
rc=0
in_root "${SUDO}bash examples/quickstart.sh" 2>&1 |
    while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done >"$LOGDIR/quickstart.log" || rc=$?
t1=$(now)
NAMES+=(quickstart) TIMES+=("$(secs "$t0" "$t1")")
if [ $rc -ne 0 ] || ! grep -q "flowcut is installed in" "$LOGDIR/quickstart.log"; then
    FAILED=1
    tail -n 20 "$LOGDIR/quickstart.log" | sed 's/^/    /'
    echo "fresh_debian: FAIL: quickstart.sh (log $LOGDIR/quickstart.log)"
fi
# phases: apt-get update ends at "installing Debian packages", the download
# at dpkg's first entry after apt's start, the packages at "building"
at() { awk -v p="$1" 'index($0, p) { print $1; exit }' "$LOGDIR/quickstart.log"; }
t_update=$(at "installing Debian packages") t_build=$(at "building flowcut") t_install=$(at "installing into")
apt_start=$(sed -n 's/^Start-Date: //p' "$R/var/log/apt/history.log" 2>/dev/null | tail -n 1)
t_unpack=""
if [ -n "$apt_start" ]; then
    s=$(date -d "$apt_start" +%s)
    first=$(awk -v s="$(date -d "@$s" '+%F %T')" '($1 " " $2) >= s { print $1 " " $2; exit }' "$R/var/log/dpkg.log")
    [ -n "$first" ] && t_unpack=$(date -d "$first" +%s)
fi
sed 's/^[0-9.]* /    /' "$LOGDIR/quickstart.log"

step first-segmentation \
    "flowcut segment examples/coffee.png --seeds examples/coffee-seeds.png -o mask.png --overlay overlay.png" || true

# anti-aliased scribbles as an image editor's soft brush paints them: red
# strokes on the object, blue on the background, on a copy of the photo
cat >"$R/tmp/paint_scribbles.py" <<'PY'
import sys
sys.path.insert(0, "tests/cli")
import png_tool
w, h, ch, px = png_tool.read("examples/coffee.png")
img = bytearray(px)
fg = [((235, 150), (345, 145)), ((195, 70), (192, 150)), ((110, 260), (150, 310)),
      ((425, 215), (450, 270)), ((260, 215), (330, 240))]
bg = [((15, 340), (60, 385)), ((470, 30), (590, 45)), ((510, 340), (590, 385)),
      ((15, 30), (120, 40)), ((20, 150), (40, 250)), ((560, 120), (560, 260))]
def stroke(a, b, colour, r=4.0, soft=2.0):
    (ax, ay), (bx, by) = a, b
    dx, dy = bx - ax, by - ay
    L = max(dx * dx + dy * dy, 1e-9)
    for y in range(max(0, min(ay, by) - 8), min(h, max(ay, by) + 9)):
        for x in range(max(0, min(ax, bx) - 8), min(w, max(ax, bx) + 9)):
            t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / L))
            d = ((x - ax - t * dx) ** 2 + (y - ay - t * dy) ** 2) ** 0.5
            alpha = max(0.0, min(1.0, (r + soft - d) / (2 * soft)))  # soft edge
            if alpha > 0:
                i = (y * w + x) * ch
                for c in range(3):
                    img[i + c] = round(alpha * colour[c] + (1 - alpha) * img[i + c])
for a, b in fg:
    stroke(a, b, (255, 0, 0))
for a, b in bg:
    stroke(a, b, (0, 0, 255))
png_tool.write(sys.argv[1], w, h, ch, bytes(img))
PY
in_root "python3 /tmp/paint_scribbles.py scribbles.png" >"$LOGDIR/paint.log" 2>&1 ||
    { FAILED=1; cat "$LOGDIR/paint.log"; echo "fresh_debian: FAIL: painting the scribbles"; }
step scribbles \
    "flowcut segment examples/coffee.png --seeds scribbles.png --scribble-colors -o scribble-mask.png" || true
t2=$(now)

# 4. what README promises
echo "fresh_debian: checks"
check "flowcut on the PATH" "command -v flowcut"
check "flowcut --version" "flowcut --version"
check "flowcut --help" "flowcut --help >/dev/null && flowcut segment --help | head -n 1"
check "python3 imports flowcut" "cd / && /usr/bin/python3 -c 'import flowcut; print(flowcut.__file__)'"
check "flowcut.segment_files" "/usr/bin/python3 -c 'import flowcut; m = flowcut.segment_files(\"examples/coffee.png\", \"examples/coffee-seeds.png\"); print(m.shape, round(float((m > 0).mean()), 3))'"
[ "$NEWCOMER" = root ] || check "the checkout's files stay the user's" \
    "[ -z \"\$(find . ! -user $NEWCOMER | head -n 3)\" ] && echo none owned by another user || { find . ! -user $NEWCOMER | head -n 3; false; }"
check "library registered" "/sbin/ldconfig -p | grep -F libflowcut.so.0"
check "C example, pkg-config only" \
    "cc examples/c/segment_example.c \$(pkg-config --cflags --libs flowcut) -o /tmp/segment_example && /tmp/segment_example examples/coffee.png examples/coffee-seeds.png /tmp/c-mask.png && ldd /tmp/segment_example | grep libflowcut"
check "C mask = CLI mask" \
    "a=\$(python3 tests/cli/png_tool.py digest /tmp/c-mask.png) && b=\$(python3 tests/cli/png_tool.py digest mask.png) && [ \"\$a\" = \"\$b\" ] && echo \$a"
check "scribble mask near the seeds' mask" "python3 - <<'PY'
import sys
sys.path.insert(0, 'tests/cli')
import png_tool
_, _, _, a = png_tool.read('mask.png')
_, _, _, b = png_tool.read('scribble-mask.png')
inter = sum(1 for x, y in zip(a, b) if x and y)
union = sum(1 for x, y in zip(a, b) if x or y)
iou = inter / max(union, 1)
print(f'IoU {iou:.3f} with mask.png, foreground {sum(1 for y in b if y) / len(b):.1%}')
sys.exit(0 if iou > 0.9 else 1)
PY"

# 5. times
echo
echo "fresh_debian: wall times ($(nproc) cores)"
for i in "${!NAMES[@]}"; do printf '  %-20s %7s s\n' "${NAMES[$i]}" "${TIMES[$i]}"; done
if [ -n "$t_update" ] && [ -n "$t_build" ]; then
    printf '    apt-get update     %7s s\n' "$(secs "$t0" "$t_update")"
    if [ -n "$t_unpack" ]; then
        printf '    apt download       %7s s (to dpkg'"'"'s first unpack, 1 s resolution)\n' "$(secs "$t_update" "$t_unpack")"
        printf '    dpkg unpack/setup  %7s s\n' "$(secs "$t_unpack" "$t_build")"
    fi
    [ -n "$t_install" ] && printf '    build              %7s s\n' "$(secs "$t_build" "$t_install")"
    [ -n "$t_install" ] && printf '    install + sample   %7s s\n' "$(secs "$t_install" "$t1")"
fi
printf '  %-20s %7s s\n' total "$(secs "$t0" "$t2")"
if [ -n "$t_unpack" ]; then
    printf '  %-20s %7s s\n' "total less download" "$(awk -v a="$(secs "$t0" "$t2")" -v b="$(secs "$t_update" "$t_unpack")" -v c="$(secs "$t0" "$t_update")" 'BEGIN { printf "%.1f", a - b - c }')"
fi
echo "logs: $LOGDIR"
if [ $FAILED -ne 0 ]; then echo "fresh_debian: FAILED"; exit 1; fi
echo "fresh_debian: all steps and checks passed"
