# Each model library exports only its own folder of tlm/ (docs/architecture.md
# "Dependencies"): its PUBLIC include directory is build/include/<folder>/, which holds one
# symbolic link, <folder> -> tlm/<folder>. So "common/config.h" resolves for the library
# and for whatever links it, and a header of a folder the library does not link (one up
# the graph) is not found: the layering is the build's, not a convention
# (testbench/unit/layering checks it).
#
# ipusim_export_folder(target): `target` exports the folder of the CMakeLists.txt that
# calls it (a sub-folder keeps its path: tlm/cosim/sync -> "cosim/sync/...").
function(ipusim_export_folder target)
  file(RELATIVE_PATH folder ${PROJECT_SOURCE_DIR}/tlm ${CMAKE_CURRENT_SOURCE_DIR})
  string(REPLACE "/" "+" key ${folder})
  set(root ${PROJECT_BINARY_DIR}/include/${key})
  set(link ${root}/${folder})
  if(NOT IS_SYMLINK ${link})
    get_filename_component(parent ${link} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR} ${link} SYMBOLIC)
  endif()
  target_include_directories(${target} PUBLIC ${root})
endfunction()
