# Cortex-M33 cross toolchain (Debian gcc-arm-none-eabi + libnewlib-arm-none-eabi).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR cortex-m33)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
# STS_SIM_NOISE=0, STS_SIM_DIRTY=0, STS_SIM_PACK=0, STS_SIM_IDLE=0, STS_SIM_ENERGY=0: a firmware's model
# is noiseless, honest, keeps its pages whole, is polled for real and models no current
# (include/storscope/sim.h);
# STS_JSON_AT_END=0: its results take no caller's keys at the end (include/storscope/json.h)
set(CMAKE_C_FLAGS_INIT "-mcpu=cortex-m33 -mthumb -specs=nano.specs -ffunction-sections -fdata-sections -DSTS_SIM_NOISE=0 -DSTS_SIM_DIRTY=0 -DSTS_SIM_PACK=0 -DSTS_SIM_IDLE=0 -DSTS_SIM_ENERGY=0 -DSTS_JSON_AT_END=0")
set(CMAKE_C_FLAGS_MINSIZEREL_INIT "-Os")
# assembler sources (an RTOS kernel's port) for the same core
set(CMAKE_ASM_FLAGS_INIT "-mcpu=cortex-m33 -mthumb")
