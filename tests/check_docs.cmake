# SPDX-License-Identifier: MIT
# Fails when docs/msrs.md differs from what the catalogue generates.
execute_process(COMMAND ${GEN} OUTPUT_VARIABLE generated RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "softpmu-gen-msrs failed (${rc})")
endif()
file(READ ${DOC} committed)
if(NOT generated STREQUAL committed)
  message(FATAL_ERROR "docs/msrs.md is stale: run `cmake --build build --target docs`")
endif()
