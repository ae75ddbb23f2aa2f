# SPDX-License-Identifier: BSD-2-Clause
# The body of startup.nsh for tests/uefi's boots, one per controller
# (boot.sh adds the head and tail and CRLF line ends, and puts the chip's
# name, esp or lsi, where @CHIP@ stands). Each step prints "@..." lines that
# check.sh asserts on; every step is guarded so a missing file never leaves
# the shell waiting.
echo @BOOT
map -r
echo @PREMAPPED
if exist fs0:\pcamscsi.efi then
  load fs0:\pcamscsi.efi
endif
map -r
echo @MAPPED
for %a in fs1 fs2 fs3 fs4 fs5 fs6
  if exist %a:\pcamdisk.txt then
    echo @FS %a
    type %a:\pcamdisk.txt
    echo @TYPEEND
    echo written-by-uefi-shell-through-pcam >a %a:\fromefi.txt
    %a:\hello.efi
  endif
endfor
# The lsi boot's SAS1068 (hal/mpt): its FAT disk, read and written.
for %a in fs1 fs2 fs3 fs4 fs5 fs6
  if exist %a:\mptdisk.txt then
    echo @MPTFS %a
    type %a:\mptdisk.txt
    echo @MPTTYPEEND
    echo written-by-uefi-shell-through-pcam-mpt >a %a:\frommpt.txt
  endif
endfor
if exist fs0:\pcamtest.efi then
  fs0:\pcamtest.efi -c @CHIP@ scan
  fs0:\pcamtest.efi -c @CHIP@ cd
  fs0:\pcamtest.efi -c @CHIP@ read
  fs0:\pcamtest.efi -c @CHIP@ big
  fs0:\pcamtest.efi -c @CHIP@ nonblock
  fs0:\pcamtest.efi -c @CHIP@ tagged
  fs0:\pcamtest.efi -c @CHIP@ bad
  fs0:\pcamtest.efi -c @CHIP@ random 300 12345
  fs0:\pcamtest.efi -c @CHIP@ reset
  fs0:\pcamtest.efi -c @CHIP@ timeout
  fs0:\pcamtest.efi -c @CHIP@ cycle 3
  fs0:\pcamtest.efi -c @CHIP@ unload
  echo @RELOAD
  load fs0:\pcamscsi.efi
  map -r
  for %a in fs1 fs2 fs3 fs4 fs5 fs6
    if exist %a:\fromefi.txt then
      echo @FS2 %a
      type %a:\fromefi.txt
      echo @TYPE2END
    endif
  endfor
  fs0:\pcamtest.efi -c @CHIP@ read
  fs0:\pcamtest.efi -c @CHIP@ ebs
endif
