# What check.cmake and time.cmake share: build first, find the programs, run one with a time limit.
# Protected: a patch touching it is rejected.

# Stops the script with exit code 1 and one readable line.
function(kit_fail)
  string(JOIN "" text ${ARGN})
  message(FATAL_ERROR "${text}")
endfunction()

# Builds the programs a script runs (so nothing stale is ever checked or timed: every one by
# default, `baseline` alone when only it runs) and reads build/kit-paths.cmake.
macro(kit_prepare)
  set(kit_targets ${ARGN})
  if(NOT DEFINED BUILD)
    set(BUILD build)
  endif()
  get_filename_component(KIT_BUILD "${BUILD}" ABSOLUTE BASE_DIR "${KIT_ROOT}")
  if(NOT EXISTS "${KIT_BUILD}/CMakeCache.txt")
    kit_fail("no build folder ${KIT_BUILD}: run `cmake -B build` in ${KIT_ROOT} first")
  endif()
  # Quiet when it works; the whole log when it does not.
  if(kit_targets)
    set(kit_build_args --target ${kit_targets})
  else()
    set(kit_build_args "")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${KIT_BUILD}" ${kit_build_args} RESULT_VARIABLE built
                  OUTPUT_VARIABLE build_log ERROR_VARIABLE build_log)
  if(NOT built EQUAL 0)
    message("${build_log}")
    kit_fail("the build failed (above): fix your files and run the script again.")
  endif()
  include("${KIT_BUILD}/kit-paths.cmake")
  set(KIT_PUBLIC_INPUT "${KIT_ROOT}/${KIT_PUBLIC_INPUT_FILE}")
endmacro()

# Runs `program input` with stdout into out_file; sets run_ok and run_problem in the caller.
function(kit_run program input out_file seconds)
  if(KIT_EMULATOR)
    # The limit is the program's: an emulator (Wine) alone takes seconds to start on a busy machine.
    math(EXPR seconds "${seconds} + 60")
  endif()
  execute_process(COMMAND ${KIT_EMULATOR} "${program}" "${input}"
                  OUTPUT_FILE "${out_file}" ERROR_VARIABLE errors RESULT_VARIABLE result
                  TIMEOUT ${seconds})
  if(result STREQUAL "0")
    set(run_ok TRUE PARENT_SCOPE)
    set(run_problem "" PARENT_SCOPE)
    return()
  endif()
  string(STRIP "${errors}" errors)
  if(errors)
    string(SUBSTRING "${errors}" 0 500 errors)
    set(errors "; it wrote: ${errors}")
  endif()
  if(result MATCHES "^[0-9]+$")
    set(problem "exit code ${result}${errors}")
  elseif(result MATCHES "timeout")
    set(problem "no result within the ${seconds} s limit")
  else()
    set(problem "${result}${errors}")
  endif()
  set(run_ok FALSE PARENT_SCOPE)
  set(run_problem "${problem}" PARENT_SCOPE)
endfunction()

# One line when the solution builds to the very program the baseline is (a fresh kit's template
# holds a copy of the baseline in its SOLUTION branch), so 1.0x is not mistaken for a result.
function(kit_note_if_baseline)
  file(SHA256 "${KIT_BASELINE}" baseline_sha)
  file(SHA256 "${KIT_SOLUTION}" solution_sha)
  if(baseline_sha STREQUAL solution_sha)
    message("your solution is still the baseline: edit ${KIT_SOLUTION_FILE} (its #ifdef SOLUTION branch)")
  endif()
endfunction()
