# Copies the contestant's files (the editable ones and new source files) from the kit into the
# solution tree the harness compiles, and removes files no longer in the kit: the judge's tree is
# the template plus your patch, nothing else. Run by the build; not meant to be run by hand.
#   cmake -DKIT_ROOT=<kit> -DKIT_TREE=<build>/solution-tree -P kit/sync-tree.cmake
cmake_minimum_required(VERSION 3.16)
include("${KIT_ROOT}/kit/config.cmake")

set(wanted "")
foreach(file IN LISTS KIT_EDITABLE)
  if(EXISTS "${KIT_ROOT}/${file}")
    list(APPEND wanted "${file}")
  endif()
endforeach()
set(globs "")
foreach(glob IN LISTS KIT_NEW_FILE_GLOBS)
  list(APPEND globs "${KIT_ROOT}/${glob}")
endforeach()
file(GLOB_RECURSE found RELATIVE "${KIT_ROOT}" LIST_DIRECTORIES false ${globs})
foreach(file IN LISTS found)
  string(REGEX REPLACE "/.*" "" top "${file}")
  # The kit's own folders, git's, and any build folder (it holds CMakeCache.txt) are not yours.
  if(top STREQUAL file)
    list(APPEND wanted "${file}")
  elseif(NOT top MATCHES "^(harness|kit|tests|\\.git)$" AND NOT EXISTS "${KIT_ROOT}/${top}/CMakeCache.txt"
         AND NOT file MATCHES "/CMakeFiles/")
    list(APPEND wanted "${file}")
  endif()
endforeach()
list(REMOVE_DUPLICATES wanted)

file(MAKE_DIRECTORY "${KIT_TREE}")
file(GLOB_RECURSE present RELATIVE "${KIT_TREE}" LIST_DIRECTORIES false "${KIT_TREE}/*")
foreach(file IN LISTS present)
  if(NOT file IN_LIST wanted)
    file(REMOVE "${KIT_TREE}/${file}")
  endif()
endforeach()
# COPYONLY rewrites a file only when its content changed, so unchanged files are not recompiled.
foreach(file IN LISTS wanted)
  configure_file("${KIT_ROOT}/${file}" "${KIT_TREE}/${file}" COPYONLY)
endforeach()
