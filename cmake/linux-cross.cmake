# Cross-compiling for Linux on ARM with Debian's cross compiler and the
# target's libraries installed multiarch (scripts/cross.sh installs them).
# Included by cmake/<triple>.cmake, which sets STS_CROSS_TRIPLE,
# CMAKE_SYSTEM_PROCESSOR and STS_CROSS_QEMU.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${STS_CROSS_TRIPLE}-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE ${STS_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH /usr/${STS_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
# pkg-config answers for the target's .pc files, not the build machine's
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${STS_CROSS_TRIPLE}/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
# the tests run the target's binaries under qemu-user
set(CMAKE_CROSSCOMPILING_EMULATOR ${STS_CROSS_QEMU})
