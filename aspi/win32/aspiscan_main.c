/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * aspiscan.exe: the unchanged scanner of examples/aspiscan as a Win32
 * console program, linked against wnaspi32.dll by its import library the
 * way classic ASPI utilities were. All the host work is the DLL's.
 */
int aspiscan_main(int argc, char **argv);

int main(int argc, char **argv)
{
    return aspiscan_main(argc, argv);
}
