#!/usr/bin/env bash
# singleton: singleton.c run bare, without mpiexec, as users run a program of one process.
# The time limit turns a hang (a spawn waiting for a process manager) into a failure.
set -u
bin=$MM_TEST_BIN
"$MM_PREFIX/bin/mpicc" -O2 -I"$MM_TEST_SRC" -o "$bin/singleton" "$MM_TEST_SRC/singleton.c" || exit 1
env -u PMI_FD -u PMI_PORT -u PMI_RANK -u PMI_SIZE timeout 60 "$bin/singleton"
