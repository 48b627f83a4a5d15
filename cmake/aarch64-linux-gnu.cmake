# Cross-compiling for Linux on ARM with Debian's cross compiler and the
# target's libraries installed multiarch (apt-get install libcjson-dev:ARCH
# libcmocka-dev:ARCH after dpkg --add-architecture ARCH): scripts/cross.sh.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
# pkg-config answers for the target's .pc files, not the build machine's
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
# the tests run the target's binaries under qemu-user
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
