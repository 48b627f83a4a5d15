/* The portable test groups, shared by the host runner and the firmware. */
#ifndef STS_TEST_GROUPS_H
#define STS_TEST_GROUPS_H

#include "sts_test.h"

extern const struct sts_test_case test_stats_cases[];
extern const struct sts_test_case test_units_cases[];
extern const struct sts_test_case test_json_cases[];
extern const struct sts_test_case test_target_spec_cases[];
extern const struct sts_test_case test_engine_cases[];
extern const struct sts_test_case test_sim_cases[];
extern const struct sts_test_case test_sim_noise_cases[];
extern const struct sts_test_case test_sim_faults_cases[];
extern const struct sts_test_case test_sim_raw_cases[];
extern const struct sts_test_case test_sim_store_cases[];
extern const struct sts_test_case test_analysis_cases[];
extern const struct sts_test_case test_an_evidence_cases[];
extern const struct sts_test_case test_an_system_cases[];
extern const struct sts_test_case test_an_defects_cases[];
extern const struct sts_test_case test_port_cases[];
extern const struct sts_test_case test_aging_cases[];
extern const struct sts_test_case test_logging_cases[];
extern const struct sts_test_case test_sensorlog_cases[];
extern const struct sts_test_case test_sl_parts_cases[];
extern const struct sts_test_case test_sl_tasks_cases[];
extern const struct sts_test_case test_sl_facade_cases[];
extern const struct sts_test_case test_sl_config_cases[];
extern const struct sts_test_case test_sl_durability_cases[];
extern const struct sts_test_case test_sl_ram_cases[];
extern const struct sts_test_case test_sl_format_cases[];
extern const struct sts_test_case test_sl_catalog_cases[];
extern const struct sts_test_case test_sl_dirty_cases[];
extern const struct sts_test_case test_sl_damage_cases[];
extern const struct sts_test_case test_sl_pieces_cases[];
extern const struct sts_test_case test_probe_cases[];
extern const struct sts_test_case test_card_regs_cases[];

static const struct sts_test_case *const sts_test_groups[] = {
    test_stats_cases, test_units_cases, test_json_cases, test_target_spec_cases,
    test_engine_cases, test_sim_cases, test_sim_noise_cases, test_sim_faults_cases,
    test_sim_raw_cases, test_sim_store_cases, test_analysis_cases,
    test_an_evidence_cases, test_an_system_cases, test_an_defects_cases, test_port_cases, test_aging_cases, test_logging_cases,
    test_sensorlog_cases, test_sl_parts_cases, test_sl_tasks_cases, test_sl_facade_cases,
    test_sl_config_cases, test_sl_durability_cases, test_sl_ram_cases, test_sl_format_cases,
    test_sl_catalog_cases, test_sl_dirty_cases, test_sl_damage_cases, test_sl_pieces_cases,
    test_probe_cases, test_card_regs_cases,
};
static const size_t sts_n_test_groups = sizeof(sts_test_groups) / sizeof(sts_test_groups[0]);

#endif
