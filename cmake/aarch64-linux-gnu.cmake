# arm64 Linux (Raspberry Pi 3/4/5 with a 64-bit OS): see linux-cross.cmake.
set(STS_CROSS_TRIPLE aarch64-linux-gnu)
set(STS_CROSS_QEMU qemu-aarch64)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/linux-cross.cmake)
