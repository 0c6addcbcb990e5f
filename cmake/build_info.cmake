# Writes build_info.h with the checkout's current git revision, at every build (not only at
# configure time, so a run record never names an older revision than the code that wrote it).
# configure_file leaves the file untouched when nothing changed, so nothing recompiles then.
# Arguments: SOURCE_DIR, OUTPUT, PROJECT_VERSION.
execute_process(COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE LOOM_GIT_SHA
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT LOOM_GIT_SHA)
  set(LOOM_GIT_SHA "unknown")
else()
  # Uncommitted changes to tracked files: the revision alone does not say what was built.
  execute_process(COMMAND git diff --quiet HEAD -- WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE dirty ERROR_QUIET)
  if(dirty EQUAL 1)
    string(APPEND LOOM_GIT_SHA "-dirty")
  endif()
endif()
configure_file(${SOURCE_DIR}/src/loom/core/build_info.h.in ${OUTPUT} @ONLY)
