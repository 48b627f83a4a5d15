#!/bin/sh
# Prints the line that heads every RTOS table: the kernels' versions read
# from their own headers, and the compiler, so each figure says what made it
# (issue 46: stack sizes moved from 712/696 B to 780/752 B with the kernels).
#   sh bench/kernel_versions.sh <threadx source> <freertos source>
set -eu
txv=$(awk '/define THREADX_(MAJOR|MINOR|PATCH)_VERSION/ { v = v (v ? "." : "") $3 } END { print v }' \
      "$1/common/inc/tx_api.h")
frv=$(sed -n 's/.*define tskKERNEL_VERSION_NUMBER *"\(.*\)".*/\1/p' "$2/include/task.h")
echo "Kernels: ThreadX v$txv, FreeRTOS $frv (arm-none-eabi-gcc $(arm-none-eabi-gcc -dumpversion) -Os)"
