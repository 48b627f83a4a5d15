# Firmware images on real RTOSes, built only from the user's own kernel
# sources (never fetched by the build, never in CI):
#   -DSTORSCOPE_THREADX_DIR=<eclipse-threadx/threadx>   the study's RTOS
#   -DSTORSCOPE_FREERTOS_DIR=<FreeRTOS-Kernel>
# Each gets the portable unit tests and the S1 image, on its Cortex-M33 GNU
# port (secure-only / no TrustZone: QEMU's AN505 boots secure, SAU off).
# Without the sources their ctest entries say so and are skipped.
set(FW_RTOS_BOARD startup.c board_qemu_an505.c clock_an505_timers.c)
set(FW_RTOSES)

if(STORSCOPE_THREADX_DIR AND EXISTS "${STORSCOPE_THREADX_DIR}/common/inc/tx_api.h")
  enable_language(ASM)
  set(tx_port "${STORSCOPE_THREADX_DIR}/ports/cortex_m33/gnu")
  file(GLOB tx_common "${STORSCOPE_THREADX_DIR}/common/src/*.c")
  # the template low-level start is the board's (rtos_threadx.c); the
  # secure-stack calls and MISRA helpers are not used in single mode
  set(tx_asm context_restore context_save interrupt_control interrupt_disable
      interrupt_restore schedule stack_build system_return)
  list(TRANSFORM tx_asm PREPEND "${tx_port}/src/tx_thread_")
  list(TRANSFORM tx_asm APPEND ".S")
  add_library(threadx_kernel STATIC ${tx_common} ${tx_asm} "${tx_port}/src/tx_timer_interrupt.S")
  target_include_directories(threadx_kernel PUBLIC "${STORSCOPE_THREADX_DIR}/common/inc"
      "${tx_port}/inc")
  target_compile_definitions(threadx_kernel PUBLIC TX_SINGLE_MODE_SECURE)
  add_library(storscope_board_threadx STATIC ${FW_RTOS_BOARD} rtos_threadx.c
      ${PROJECT_SOURCE_DIR}/src/port/threadx.c)
  target_include_directories(storscope_board_threadx PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}
      ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(storscope_board_threadx PUBLIC threadx_kernel)
  target_compile_options(storscope_board_threadx PRIVATE ${STORSCOPE_WARNINGS})
  list(APPEND FW_RTOSES threadx)
  message(STATUS "storscope: ThreadX firmware images ON (${STORSCOPE_THREADX_DIR})")
else()
  message(STATUS "storscope: ThreadX firmware images off (give -DSTORSCOPE_THREADX_DIR=<ThreadX source>)")
endif()

if(STORSCOPE_FREERTOS_DIR AND EXISTS "${STORSCOPE_FREERTOS_DIR}/include/FreeRTOS.h")
  set(rtos_port "${STORSCOPE_FREERTOS_DIR}/portable/GCC/ARM_CM33_NTZ/non_secure")
  add_library(freertos_kernel STATIC "${STORSCOPE_FREERTOS_DIR}/tasks.c"
      "${STORSCOPE_FREERTOS_DIR}/queue.c" "${STORSCOPE_FREERTOS_DIR}/list.c"
      "${rtos_port}/port.c" "${rtos_port}/portasm.c")
  target_include_directories(freertos_kernel PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/freertos
      "${STORSCOPE_FREERTOS_DIR}/include" "${rtos_port}")
  add_library(storscope_board_freertos STATIC ${FW_RTOS_BOARD} rtos_freertos.c
      ${PROJECT_SOURCE_DIR}/src/port/freertos.c)
  target_include_directories(storscope_board_freertos PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}
      ${PROJECT_SOURCE_DIR}/include)
  # one tick is one ms of MCU time (FreeRTOSConfig.h)
  target_compile_definitions(storscope_board_freertos PRIVATE STS_FREERTOS_TICK_NS=1000000ull)
  target_link_libraries(storscope_board_freertos PUBLIC freertos_kernel)
  target_compile_options(storscope_board_freertos PRIVATE ${STORSCOPE_WARNINGS})
  list(APPEND FW_RTOSES freertos)
  message(STATUS "storscope: FreeRTOS firmware images ON (${STORSCOPE_FREERTOS_DIR})")
else()
  message(STATUS "storscope: FreeRTOS firmware images off (give -DSTORSCOPE_FREERTOS_DIR=<FreeRTOS-Kernel>)")
endif()

set_source_files_properties(startup.c PROPERTIES COMPILE_OPTIONS -fno-tree-loop-distribute-patterns)

foreach(rtos IN LISTS FW_RTOSES)
  storscope_firmware_image(storscope-tests-${rtos} BOARD storscope_board_${rtos} tests_main.c
      ${FW_TEST_SOURCES})
  target_link_libraries(storscope-tests-${rtos} PRIVATE storscope_board_${rtos})
  # S1 with the storage tasks at the load's priority, and above it
  storscope_firmware_image(storscope-s1-${rtos} BOARD storscope_board_${rtos} s1_main.c)
  target_link_libraries(storscope-s1-${rtos} PRIVATE storscope_board_${rtos})
  # L1 on the same paced device: real producer and writer tasks, and the
  # event loop beside them, at the study's rates and at ten times them
  foreach(v l1-tasks l1-loop l1-tasks-x10 l1-loop-x10)
    storscope_firmware_image(storscope-${v}-${rtos} BOARD storscope_board_${rtos} s1_main.c)
    target_link_libraries(storscope-${v}-${rtos} PRIVATE storscope_board_${rtos})
  endforeach()
  foreach(x "" -x10)
    target_compile_definitions(storscope-l1-tasks${x}-${rtos} PRIVATE RTOS_L1=1)
    target_compile_definitions(storscope-l1-loop${x}-${rtos} PRIVATE RTOS_L1=0)
  endforeach()
  foreach(v l1-tasks-x10 l1-loop-x10)
    target_compile_definitions(storscope-${v}-${rtos} PRIVATE
        "RTOS_L1_STREAMS=\"imu:10000x12,ppg:1000x24,env:10x64\"")
  endforeach()
  storscope_firmware_image(storscope-s1-priority-${rtos} BOARD storscope_board_${rtos} s1_main.c)
  target_link_libraries(storscope-s1-priority-${rtos} PRIVATE storscope_board_${rtos})
  target_compile_definitions(storscope-s1-priority-${rtos} PRIVATE S1_STORAGE_PRIORITY=1)
  if(STORSCOPE_HAVE_FILEX) # the user's FileX on the RTOS: with ThreadX, the study's stack
    foreach(v s1-filex s1-filex-priority l1-tasks-filex l1-loop-filex l1-tasks-x10-filex
              l1-loop-x10-filex)
      storscope_firmware_image(storscope-${v}-${rtos} BOARD storscope_board_${rtos} s1_main.c)
      target_link_libraries(storscope-${v}-${rtos} PRIVATE storscope_board_${rtos})
      target_compile_definitions(storscope-${v}-${rtos} PRIVATE S1_FILEX FX_STANDALONE_ENABLE
          FX_SINGLE_THREAD FX_NO_TIMER)
      target_include_directories(storscope-${v}-${rtos} PRIVATE "${STORSCOPE_FILEX_DIR}/common/inc"
          "${STORSCOPE_FILEX_DIR}/ports/generic/inc")
    endforeach()
    target_compile_definitions(storscope-s1-filex-priority-${rtos} PRIVATE S1_STORAGE_PRIORITY=1)
    foreach(x "" -x10)
      target_compile_definitions(storscope-l1-tasks${x}-filex-${rtos} PRIVATE RTOS_L1=1)
      target_compile_definitions(storscope-l1-loop${x}-filex-${rtos} PRIVATE RTOS_L1=0)
    endforeach()
    foreach(v l1-tasks-x10-filex l1-loop-x10-filex)
      target_compile_definitions(storscope-${v}-${rtos} PRIVATE
          "RTOS_L1_STREAMS=\"imu:10000x12,ppg:1000x24,env:10x64\"")
    endforeach()
  endif()
  if(STORSCOPE_HAVE_FILEX AND rtos STREQUAL "threadx")
    # The study image (B0, M1, S2 at full scale) on the study's own stack:
    # FileX built against ThreadX, so every call takes the media's mutex
    # (issue 46: every other image builds FileX single-threaded). Its FileX
    # and adapter are compiled here, into the image, so the portable
    # library's single-threaded copies are never linked.
    file(GLOB fx_thread_sources "${STORSCOPE_FILEX_DIR}/common/src/*.c")
    set_source_files_properties(${fx_thread_sources} PROPERTIES COMPILE_OPTIONS "-w")
    storscope_firmware_image(storscope-study-filex-threadx BOARD storscope_board_threadx
        suite_filex_main.c mcu_clock.c ${fx_thread_sources}
        ${PROJECT_SOURCE_DIR}/src/fs/filex_fs.c)
    target_link_libraries(storscope-study-filex-threadx PRIVATE storscope_board_threadx)
    target_compile_definitions(storscope-study-filex-threadx PRIVATE STS_FILEX_STUDY
        STS_FILEX_THREADX STORSCOPE_HAVE_FILEX FX_NO_TIMER STS_PORT_CLOCK_IS_MCU_TIME)
    target_include_directories(storscope-study-filex-threadx PRIVATE
        "${STORSCOPE_FILEX_DIR}/common/inc" "${STORSCOPE_FILEX_DIR}/ports/cortex_m33/gnu/inc")
  endif()
endforeach()

# ctest entries for every RTOS storscope knows: run where built, skipped
# with the reason where not
function(storscope_rtos_tests)
  foreach(rtos threadx freertos)
    string(TOUPPER ${rtos} RTOS)
    if(rtos IN_LIST FW_RTOSES)
      add_test(NAME firmware-tests-${rtos} COMMAND ${QEMU_RUN}
          $<TARGET_FILE:storscope-tests-${rtos}>)
      set_tests_properties(firmware-tests-${rtos} PROPERTIES PASS_REGULAR_EXPRESSION
          " passed, 0 failed" FAIL_REGULAR_EXPRESSION "FAULT|FAIL " TIMEOUT 1000 LABELS ${rtos})
      add_test(NAME firmware-s1-${rtos} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/run_s1.sh
          ${QEMU_SYSTEM_ARM} $<TARGET_FILE:storscope-s1-${rtos}>
          $<TARGET_FILE:storscope-s1-priority-${rtos}> ${DEBIAN_PYTHON3}
          ${PROJECT_SOURCE_DIR}/docs/storscope-result.schema.json ${CMAKE_CURRENT_BINARY_DIR}
          ${rtos})
      set_tests_properties(firmware-s1-${rtos} PROPERTIES TIMEOUT 2000 LABELS ${rtos})
      add_test(NAME firmware-l1-${rtos} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/run_l1.sh
          ${QEMU_SYSTEM_ARM} $<TARGET_FILE:storscope-l1-tasks-${rtos}>
          $<TARGET_FILE:storscope-l1-loop-${rtos}> $<TARGET_FILE:storscope-l1-tasks-x10-${rtos}>
          $<TARGET_FILE:storscope-l1-loop-x10-${rtos}> ${DEBIAN_PYTHON3}
          ${PROJECT_SOURCE_DIR}/docs/storscope-result.schema.json ${CMAKE_CURRENT_BINARY_DIR}
          ${rtos})
      set_tests_properties(firmware-l1-${rtos} PROPERTIES TIMEOUT 2000 LABELS ${rtos})
      if(STORSCOPE_HAVE_FILEX)
        add_test(NAME firmware-s1-filex-${rtos} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/run_s1.sh
            ${QEMU_SYSTEM_ARM} $<TARGET_FILE:storscope-s1-filex-${rtos}>
            $<TARGET_FILE:storscope-s1-filex-priority-${rtos}> ${DEBIAN_PYTHON3}
            ${PROJECT_SOURCE_DIR}/docs/storscope-result.schema.json ${CMAKE_CURRENT_BINARY_DIR}
            ${rtos} filex)
        set_tests_properties(firmware-s1-filex-${rtos} PROPERTIES TIMEOUT 3000
            LABELS "${rtos};thirdparty")
        add_test(NAME firmware-l1-filex-${rtos} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/run_l1.sh
            ${QEMU_SYSTEM_ARM} $<TARGET_FILE:storscope-l1-tasks-filex-${rtos}>
            $<TARGET_FILE:storscope-l1-loop-filex-${rtos}>
            $<TARGET_FILE:storscope-l1-tasks-x10-filex-${rtos}>
            $<TARGET_FILE:storscope-l1-loop-x10-filex-${rtos}> ${DEBIAN_PYTHON3}
            ${PROJECT_SOURCE_DIR}/docs/storscope-result.schema.json ${CMAKE_CURRENT_BINARY_DIR}
            ${rtos} filex)
        set_tests_properties(firmware-l1-filex-${rtos} PROPERTIES TIMEOUT 3000
            LABELS "${rtos};thirdparty")
      endif()
      if(TARGET storscope-study-filex-${rtos})
        # the study image on the kernel: boots in ThreadX's first thread,
        # reads its arguments, and a word it cannot apply ends it, named
        add_test(NAME firmware-study-filex-${rtos}-refuses-bad-params COMMAND sh -c
            "${QEMU_SYSTEM_ARM} -M mps2-an505 -nographic -semihosting-config \
enable=on,target=native,arg=study,arg=fx_cluster=3K -icount shift=0,sleep=off \
-kernel \"$0\" </dev/null; echo \"exit code $?\"" $<TARGET_FILE:storscope-study-filex-${rtos}>)
        set_tests_properties(firmware-study-filex-${rtos}-refuses-bad-params PROPERTIES
            TIMEOUT 60 LABELS "${rtos};thirdparty"
            PASS_REGULAR_EXPRESSION "bad model parameter 'fx_cluster=3K'.*exit code 4")
      endif()
    else()
      add_test(NAME firmware-tests-${rtos} COMMAND sh -c "echo 'skipped: the ${rtos} images \
need its sources: -DSTORSCOPE_${RTOS}_DIR=<path> (never fetched by the build)'; exit 77")
      set_tests_properties(firmware-tests-${rtos} PROPERTIES SKIP_RETURN_CODE 77 LABELS ${rtos})
      add_test(NAME firmware-s1-${rtos} COMMAND sh -c "echo 'skipped: S1 on ${rtos} needs its \
sources: -DSTORSCOPE_${RTOS}_DIR=<path> (never fetched by the build)'; exit 77")
      set_tests_properties(firmware-s1-${rtos} PROPERTIES SKIP_RETURN_CODE 77 LABELS ${rtos})
      add_test(NAME firmware-l1-${rtos} COMMAND sh -c "echo 'skipped: L1 on ${rtos} needs its \
sources: -DSTORSCOPE_${RTOS}_DIR=<path> (never fetched by the build)'; exit 77")
      set_tests_properties(firmware-l1-${rtos} PROPERTIES SKIP_RETURN_CODE 77 LABELS ${rtos})
    endif()
  endforeach()
endfunction()
