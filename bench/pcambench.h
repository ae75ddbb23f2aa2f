/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The benchmark as a function, so pcamctl's "bench" subcommand runs the
 * same code as the pcambench program (compiled with PCAMBENCH_NO_MAIN).
 */
#ifndef PCAMBENCH_H
#define PCAMBENCH_H

/* Parse pcambench's options from argv[1..argc-1], run, print the figures.
 * name is the program name for messages. Returns the exit status: 0, 1 if
 * a command failed or the bus could not be built, 2 for bad options. */
int pcambench_main(int argc, char **argv, const char *name);

/* The --qemu mode (pcambench_qemu.c): random reads over QEMU's AM53C974.
 * pcambench_main() hands over to it when --qemu is among the options. */
int pcambench_qemu_main(int argc, char **argv, const char *name);

/* The --qemu-sym mode (pcambench_sym.c): tagged reads over QEMU's LSI53C895A. */
int pcambench_sym_main(int argc, char **argv, const char *name);

#endif /* PCAMBENCH_H */
