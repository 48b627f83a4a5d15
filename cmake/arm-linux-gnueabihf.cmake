# armhf Linux (32-bit Raspberry Pi OS, BeagleBone): see linux-cross.cmake.
set(STS_CROSS_TRIPLE arm-linux-gnueabihf)
set(STS_CROSS_QEMU qemu-arm)
set(CMAKE_SYSTEM_PROCESSOR arm)
include(${CMAKE_CURRENT_LIST_DIR}/linux-cross.cmake)
