# SPDX-License-Identifier: BSD-2-Clause
# The example wnaspi32.ini of docs/aspi.md, extracted verbatim (the ```ini
# block after its marker comment) into the build tree, so the Wine tests
# (tests/win32) and the unit test of the parser (tests/aspi) run the file a
# reader copies. Editing the document re-runs the extraction.
set(PCAM_DOC_INI ${CMAKE_BINARY_DIR}/docs-example-wnaspi32.ini)
set(_doc ${PROJECT_SOURCE_DIR}/docs/aspi.md)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_doc})
file(READ ${_doc} _text)
string(FIND "${_text}" "<!-- example wnaspi32.ini" _at)
if(_at LESS 0)
  message(FATAL_ERROR "docs/aspi.md has no '<!-- example wnaspi32.ini' block")
endif()
string(SUBSTRING "${_text}" ${_at} -1 _text)
string(FIND "${_text}" "```ini\n" _at)
math(EXPR _at "${_at} + 7")
string(SUBSTRING "${_text}" ${_at} -1 _text)
string(FIND "${_text}" "\n```" _end)
if(_end LESS 0)
  message(FATAL_ERROR "docs/aspi.md: the example wnaspi32.ini block has no closing fence")
endif()
math(EXPR _end "${_end} + 1")
string(SUBSTRING "${_text}" 0 ${_end} _text)
file(WRITE ${PCAM_DOC_INI}.tmp "${_text}")
# Rewritten only when it changed: tests that depend on it do not rebuild.
configure_file(${PCAM_DOC_INI}.tmp ${PCAM_DOC_INI} COPYONLY)
