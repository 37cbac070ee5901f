/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What padlock-sim exports to its test helper module (drivers/test/padlock-simtest.c).
 */
#ifndef PADLOCK_SIM_EXPORT_H
#define PADLOCK_SIM_EXPORT_H

#include <linux/types.h>

void padlock_sim_expect_fault(bool on);
u64 padlock_sim_last_cost(void);
void padlock_sim_set_trap_overhead(u64 cycles);

#endif
