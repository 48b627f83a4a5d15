# The portable unit tests and their harness: one list for the host runner
# (tests/CMakeLists.txt) and the Cortex-M33 image (firmware/CMakeLists.txt).
# A new group is added here and in tests/harness/groups.h.
set(STORSCOPE_UNIT_TEST_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/../harness/sts_test.c
    ${CMAKE_CURRENT_LIST_DIR}/../harness/test_mem.c
    ${CMAKE_CURRENT_LIST_DIR}/test_stats.c
    ${CMAKE_CURRENT_LIST_DIR}/test_units.c
    ${CMAKE_CURRENT_LIST_DIR}/test_json.c
    ${CMAKE_CURRENT_LIST_DIR}/test_target_spec.c
    ${CMAKE_CURRENT_LIST_DIR}/test_engine.c
    ${CMAKE_CURRENT_LIST_DIR}/sim_fixture.c
    ${CMAKE_CURRENT_LIST_DIR}/test_sim.c
    ${CMAKE_CURRENT_LIST_DIR}/test_sim_noise.c
    ${CMAKE_CURRENT_LIST_DIR}/test_sim_faults.c
    ${CMAKE_CURRENT_LIST_DIR}/test_sim_raw.c
    ${CMAKE_CURRENT_LIST_DIR}/test_sim_store.c
    ${CMAKE_CURRENT_LIST_DIR}/test_analysis.c
    ${CMAKE_CURRENT_LIST_DIR}/test_an_evidence.c
    ${CMAKE_CURRENT_LIST_DIR}/test_an_system.c
    ${CMAKE_CURRENT_LIST_DIR}/test_an_defects.c
    ${CMAKE_CURRENT_LIST_DIR}/test_port.c
    ${CMAKE_CURRENT_LIST_DIR}/test_aging.c
    ${CMAKE_CURRENT_LIST_DIR}/test_logging.c
    ${CMAKE_CURRENT_LIST_DIR}/sl_fixture.c
    ${CMAKE_CURRENT_LIST_DIR}/test_sensorlog.c
    ${CMAKE_CURRENT_LIST_DIR}/test_sl_parts.c
    ${CMAKE_CURRENT_LIST_DIR}/test_sl_tasks.c
    ${CMAKE_CURRENT_LIST_DIR}/test_sl_facade.c
    ${CMAKE_CURRENT_LIST_DIR}/test_sl_config.c
    ${CMAKE_CURRENT_LIST_DIR}/test_sl_durability.c
    ${CMAKE_CURRENT_LIST_DIR}/test_sl_ram.c
    ${CMAKE_CURRENT_LIST_DIR}/test_sl_format.c
    ${CMAKE_CURRENT_LIST_DIR}/test_sl_catalog.c
    ${CMAKE_CURRENT_LIST_DIR}/test_sl_dirty.c
    ${CMAKE_CURRENT_LIST_DIR}/test_sl_pieces.c
    ${CMAKE_CURRENT_LIST_DIR}/test_probe.c)
