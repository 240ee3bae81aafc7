#!/bin/sh
# Runs once inside the Debian 13 guest, at boot (curso-huesped.service hands over to it from the run's
# disk), then powers the guest off.
# Every line starting with CURSO-HUESPED- is a marker the host reads on the serial console.
# The course arrives on the disk labelled curso-io (curso/); the run folders go back on it (salida/).
set -u
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH LANG=C.UTF-8
MARK=CURSO-HUESPED-
STUDENT=alumno
SUID=$(id -u "$STUDENT")
VENV=/opt/venv
up() { cut -d' ' -f1 /proc/uptime; }
mark() { echo "$MARK$*"; }
fail=0

finish() {
    journalctl -b --no-pager -o short-monotonic > "$OUT/journal.txt" 2>&1
    chmod -R a+rX "$OUT" 2>/dev/null
    sync
    umount /mnt/io 2>/dev/null
    mark "FIN $1"
    systemctl poweroff --no-block
    exit 0
}

mark "INICIO $(up)"
systemctl is-system-running --wait >/dev/null 2>&1
mark "SISTEMA $(systemctl is-system-running) $(up)"

OUT=/mnt/io/salida  # the bootstrap in the image mounted the disk labelled curso-io there
mkdir -p "$OUT/hechos" "$OUT/restos" "$OUT/root" "$OUT/$STUDENT"
: > "$OUT/tiempos.txt"
phase() { echo "$1 $2" >> "$OUT/tiempos.txt"; mark "FASE $1 $2"; }
phase sistema "$(up)"

# No network device: pasta (rootless Podman) needs a link with a default route. Nothing leaves the VM:
# dummy0 is a software link that drops what it is sent, and its address is from TEST-NET-1 (RFC 5737,
# reserved for documentation, never routed anywhere).
ip link add dummy0 type dummy && ip addr add 192.0.2.15/24 dev dummy0 && ip link set dummy0 up \
    && ip route add default via 192.0.2.1 dev dummy0
ip -o addr > "$OUT/hechos/red.txt" 2>&1; ip route >> "$OUT/hechos/red.txt" 2>&1
for nic in /sys/class/net/*; do  # a network device backed by hardware has a `device` link
    [ -e "$nic/device" ] && echo "${nic##*/}"
done > "$OUT/hechos/tarjetas-de-red.txt"

# The facts the host's tests compare with what notebook 00 says.
H="$OUT/hechos"
uname -r > "$H/kernel.txt"
stat -fc %T /sys/fs/cgroup > "$H/cgroupfs.txt"
cat /sys/fs/cgroup/cgroup.controllers > "$H/controladores.txt"
U=/sys/fs/cgroup/user.slice/user-$SUID.slice/user@$SUID.service
cat "$U/cgroup.controllers" > "$H/delegados-$STUDENT.txt" 2>&1
dpkg-query -W > "$H/paquetes.txt"
crun --version > "$H/crun.txt" 2>&1
"$VENV/bin/python" --version > "$H/python.txt" 2>&1

i=0
until docker info >/dev/null 2>&1 || [ $i -ge 120 ]; do sleep 1; i=$((i + 1)); done
docker version > "$H/docker.txt" 2>&1
podman version > "$H/podman.txt" 2>&1
phase motores "$(up)"

# Run the script $3 (written into the user's copy of the course) as user $1 (home $2), in the course's
# environment: its folder on PYTHONPATH, as an editable install would give it (the venv holds its
# dependencies).
as_user() {
    who=$1; home=$2; script=$3
    env="HOME=$home USER=$who LOGNAME=$who LANG=C.UTF-8 PATH=$VENV/bin:$PATH PYTHONPATH=$home/curso"
    if [ "$who" = root ]; then
        env -i $env sh "$script"
    else
        runuser -u "$who" -- env -i $env XDG_RUNTIME_DIR=/run/user/$SUID \
            DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/$SUID/bus sh "$script"
    fi
}

copy_course() {  # $1 = user, $2 = home, $3 = the user's folder in salida/
    cp -a /mnt/io/curso "$2/curso"
    chown -R "$1:" "$2/curso" 2>/dev/null
    [ "$1" = root ] || chown "$1:" "$3"
}

# Preparing the cached layer (helpers/guest/capa.py, once): the stand-in images imported from the
# tarballs in the image by the course's own images.ensure, for each user; nothing else is kept.
prepare() {  # $1 = root | alumno, $2 = home
    who=$1; home=$2; dest="$OUT/$who"
    copy_course "$who" "$home" "$dest"
    cat > "$home/curso/.huesped.sh" <<EOF
cd $home/curso
echo "$MARK$who imagenes \$(cut -d' ' -f1 /proc/uptime)"
$VENV/bin/python -m helpers.guest.capa > $dest/imagenes.log 2>&1
echo \$? > $dest/codigo.txt
EOF
    as_user "$who" "$home" "$home/curso/.huesped.sh"
    [ "$(cat "$dest/codigo.txt" 2>/dev/null)" = 0 ] || fail=1
    rm -rf "$home/curso"
}

if [ -e /mnt/io/preparar-imagenes ]; then
    prepare root /root
    phase root "$(up)"
    prepare "$STUDENT" "/home/$STUDENT"
    phase "$STUDENT" "$(up)"
    finish $fail
fi

# ---- course run: the images layer's key (capa.layer_key) ends here; what follows changes no layer.
# One user's course: the stand-in images (imported once into the layer this guest boots on; the
# course's images.ensure finds them), then notebook 00 and the quick profile of the first class's other
# notebooks ($3: 02 and 03 as root; 01, 02 and 03 as the student).
course() {  # $1 = root | alumno, $2 = home, $3 = the notebooks after 00
    who=$1; home=$2; notebooks=$3; dest="$OUT/$who"
    copy_course "$who" "$home" "$dest"
    cat > "$home/curso/.huesped.sh" <<EOF
cd $home/curso
echo "$MARK$who imagenes \$(cut -d' ' -f1 /proc/uptime)"
$VENV/bin/python -c 'from helpers import images; images.ensure(try_pull=False)' > $dest/imagenes.log 2>&1
echo "$MARK$who curso \$(cut -d' ' -f1 /proc/uptime)"
# Under TCG every launch costs seconds and the guest shares the host's two cores with the rest of
# `make test`: one measured round and no warm-up (figures without verdicts), N = 0 and 1 in 02, and two of
# 03's five workloads (one of CPU, one of I/O with fsync on the layer and a volume). With 2 rounds, N up to
# 3 and 01 for both users, root's course alone took 54 min in one CI run and the guest ran out of its 65. Root skips
# 01: its launches under emulation decide nothing, and Docker and Podman launch on v2 in 02 and 03 too. The
# course page lists these parameters (course.json "overrides").
$VENV/bin/python -m helpers.course --solo 00 $notebooks --rapido --parametros '{"REPETICIONES": 1, "CALENTAMIENTO": 0, "CANTIDADES": [0, 1], "CARGAS": ["hash", "escritura"]}' > $dest/curso.log 2>&1
echo \$? > $dest/codigo.txt
$VENV/bin/python -m helpers.guest.sonda > $dest/sonda.json 2> $dest/sonda.log
echo "$MARK$who fin \$(cut -d' ' -f1 /proc/uptime)"
EOF
    as_user "$who" "$home" "$home/curso/.huesped.sh"
    for d in results build; do
        [ -d "$home/curso/$d" ] && cp -a "$home/curso/$d" "$dest/"
    done
    [ "$(cat "$dest/codigo.txt" 2>/dev/null)" = 0 ] || fail=1
}

course root /root "02 03"
phase root "$(up)"
podman version > "$H/podman-$STUDENT.txt" 2>&1 || true
course "$STUDENT" "/home/$STUDENT" "01 02 03"
runuser -u "$STUDENT" -- env XDG_RUNTIME_DIR=/run/user/$SUID podman info --format json \
    > "$H/podman-info-$STUDENT.json" 2>&1
phase "$STUDENT" "$(up)"

# What is left in the guest: containers of every engine, their processes, their cgroups.
R="$OUT/restos"
docker ps -aq > "$R/docker.txt" 2>&1
podman ps -aq > "$R/podman.txt" 2>&1
runuser -u "$STUDENT" -- env XDG_RUNTIME_DIR=/run/user/$SUID podman ps -aq > "$R/podman-$STUDENT.txt" 2>&1
ps -eo pid,user,comm,args > "$R/procesos.txt"
find /sys/fs/cgroup -type d \( -name 'docker-*.scope' -o -name 'libpod-*' \) > "$R/cgroups.txt" 2>&1
phase restos "$(up)"
finish $fail
