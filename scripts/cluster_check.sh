#!/bin/sh
# storscope plan beyond one machine, on a real Slurm and a real PostgreSQL
# (issue 48): starts munge, slurmctld and slurmd on this host with a
# generated configuration and a PostgreSQL cluster in a temporary
# directory, runs a plan through a Slurm array job whose tasks archive
# their runs into PostgreSQL, collects it, and checks that it is the plan
# the same options give run locally into SQLite, byte for byte. Stops
# everything it started and removes its files. Ends with one line,
# "N passed, 0 failed"; exit 1 when a check failed.
#   scripts/cluster_check.sh [STORSCOPE]       (default build/release/storscope; as root)
set -eu
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build/release/storscope}")
if [ "$(id -u)" -ne 0 ]; then
    echo "cluster_check: skipped: needs root (it starts munged, slurmctld and slurmd)"
    exit 77
fi
scripts/deps.sh --only slurm-wlm munge postgresql
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
T=$(mktemp -d /tmp/storscope-cluster.XXXXXX)
chmod 755 "$T"
pass=0 fail=0
check() { # check NAME COMMAND...: one line each, counted
    name=$1
    shift
    if "$@" >"$T/check.out" 2>&1; then
        pass=$((pass + 1))
        echo "ok: $name"
    else
        fail=$((fail + 1))
        echo "FAILED: $name"
        sed 's/^/  /' "$T/check.out" | tail -n 20
    fi
}
stop_all() {
    for d in slurmd slurmctld; do
        [ -f "$T/$d.pid" ] && kill "$(cat "$T/$d.pid")" 2>/dev/null || true
    done
    [ -f "$T/munge/pid" ] && kill "$(cat "$T/munge/pid")" 2>/dev/null || true
    [ -d "$T/pg/data" ] && runuser -u postgres -- "$pgbin/pg_ctl" -D "$T/pg/data" -m fast \
        stop >/dev/null 2>&1 || true
    sleep 1
}
trap 'stop_all; rm -rf "$T"' EXIT INT TERM

# munge: its own key, socket and files in $T
mkdir -m 700 "$T/munge"
dd if=/dev/urandom of="$T/munge/key" bs=1024 count=1 2>/dev/null
chmod 600 "$T/munge/key"
munged --force --socket="$T/munge/sock" --key-file="$T/munge/key" --pid-file="$T/munge/pid" \
    --log-file="$T/munge/log" --seed-file="$T/munge/seed"

# Slurm: one node, this host, its CPUs; ports of its own
export SLURM_CONF="$T/slurm.conf"
mkdir "$T/state" "$T/spool" "$T/shards"
cat >"$SLURM_CONF" <<EOF
ClusterName=storscope
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket=$T/munge/sock
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=check Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld
slurmd -N localhost
for _ in $(seq 30); do sinfo -h -o %t 2>/dev/null | grep -q idle && break; sleep 1; done

# PostgreSQL: a cluster in $T as the postgres account, a Unix socket, no TCP
mkdir -p "$T/pg/sock"
chown -R postgres "$T/pg"
runuser -u postgres -- "$pgbin/initdb" -D "$T/pg/data" -A trust -U postgres -E UTF8 \
    >"$T/pg/initdb.log"
runuser -u postgres -- "$pgbin/pg_ctl" -D "$T/pg/data" -w -l "$T/pg/log" \
    -o "-k $T/pg/sock -c listen_addresses=" start >/dev/null
runuser -u postgres -- "$pgbin/createdb" -h "$T/pg/sock" plan
pg="postgresql:///plan?host=$T/pg/sock&user=postgres"

# the plan: the study's streams on a small eMMC, each run 20 s of virtual time
plan="--streams imu:1000Hz:12B,env:1Hz:32B --ram 16K -d 20s --confirm-for 2m --medium sim:emmc-stm32u5,capacity=64M"
export XDG_DATA_HOME="$T/data" # where --slurm records the job for --collect JOB
t0=$(date +%s)
# shellcheck disable=SC2086
"$bin" plan $plan -q --db="sqlite:$T/local.db" -o "$T/local.json" || [ $? -eq 1 ]
t1=$(date +%s)
# shellcheck disable=SC2086
"$bin" plan $plan --db="$pg" --slurm --shard-dir "$T/shards" >"$T/submit.out"
job=$(sed -n 's/^submitted Slurm job \([0-9]*\):.*/\1/p' "$T/submit.out")
for _ in $(seq 480); do squeue -h -j "$job" 2>/dev/null | grep -q . || break; sleep 1; done
# shellcheck disable=SC2086
"$bin" plan $plan -q --collect "$job" -o "$T/slurm.json" || [ $? -eq 1 ]
t2=$(date +%s)
runs=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['runs'])" "$T/local.json")
configs=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['configurations']))" \
    "$T/local.json")
echo "plan: $runs runs, $configs configurations; locally $((t1 - t0)) s, through Slurm $((t2 - t1)) s"

check "the plan judges 16 configurations or more" test "$configs" -ge 16
check "Slurm ran every run: a task each, its results in the shards' directory" \
    test "$(ls "$T/shards" | grep -c '^[0-9]*\.json$')" -eq "$runs"
check "no task failed (every task's output is empty)" \
    sh -c "! grep -l . $T/shards/slurm-*.out"
check "the plan through Slurm is the local plan, byte for byte" cmp "$T/local.json" "$T/slurm.json"
check "PostgreSQL archived every run" \
    test "$(psql -X -At -d "$pg" -c 'SELECT count(*) FROM runs')" -eq "$runs"
check "SQLite archived every run" test "$("$bin" db list --db="sqlite:$T/local.db" |
    grep -c '^[0-9]')" -eq "$runs"
# the archives hold the same runs: every point's figures, run and time aside
"$bin" db export --db "$pg" | cut -d, -f3- | sort >"$T/pg.csv"
"$bin" db export --db "sqlite:$T/local.db" | cut -d, -f3- | sort >"$T/sqlite.csv"
check "PostgreSQL and SQLite hold the same points" cmp "$T/pg.csv" "$T/sqlite.csv"
pids="$(cat "$T/slurmctld.pid" "$T/slurmd.pid" "$T/munge/pid" | tr '\n' ' ')"
pids="$pids $(head -n 1 "$T/pg/data/postmaster.pid")"
stop_all
gone() { # the processes $pids have ended, within 20 s of being told to
    for _ in $(seq 40); do
        alive=0
        for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ $alive -eq 0 ] && return 0
        sleep 0.5
    done
    echo "still running: $(for p in $pids; do kill -0 "$p" 2>/dev/null && ps -o comm= -p "$p"; done)"
    return 1
}
check "everything it started has stopped (slurmctld, slurmd, munged, postgres)" gone
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
