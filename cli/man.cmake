# SPDX-License-Identifier: MIT
# One man page: ${SOFTPMU} help --roff ${ARG} > ${OUT} (cli/CMakeLists.txt).
get_filename_component(dir ${OUT} DIRECTORY)
file(MAKE_DIRECTORY ${dir})
execute_process(COMMAND ${SOFTPMU} help --roff ${ARG}
  OUTPUT_FILE ${OUT}.tmp RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUT}.tmp)
  message(FATAL_ERROR "${SOFTPMU} help --roff ${ARG}: ${rc}")
endif()
file(RENAME ${OUT}.tmp ${OUT})
