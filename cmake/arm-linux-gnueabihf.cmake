# Cross-compiling for Linux on ARM with Debian's cross compiler and the
# target's libraries installed multiarch (apt-get install libcjson-dev:ARCH
# libcmocka-dev:ARCH after dpkg --add-architecture ARCH): scripts/cross.sh.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-linux-gnueabihf-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE arm-linux-gnueabihf)
set(CMAKE_FIND_ROOT_PATH /usr/arm-linux-gnueabihf)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
# pkg-config answers for the target's .pc files, not the build machine's
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/arm-linux-gnueabihf/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
# the tests run the target's binaries under qemu-user
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-arm)
