# Tile code is optimised unless asked otherwise (firmware/cmake/IpuFirmware.cmake):
# configures ./project (a user's project: IpuFirmware.cmake, no build type) with no build
# type, with Debug and with RelWithDebInfo, and checks the -O flags each compile of k.c gets
# (compile_commands.json) and what configuring says.
#   cmake -DROOT=<ipusim> -DWORK=<scratch dir> -P check_optimization.cmake
set(project ${CMAKE_CURRENT_LIST_DIR}/project)
set(toolchain ${ROOT}/firmware/cmake/riscv-toolchain.cmake)

# The -O flags of target `target`'s compile of k.c, in order.
function(o_flags out build target)
  file(READ ${build}/compile_commands.json json)
  string(JSON n LENGTH "${json}")
  math(EXPR last "${n} - 1")
  foreach(i RANGE 0 ${last})
    string(JSON command GET "${json}" ${i} command)
    if(command MATCHES "CMakeFiles/${target}_objs.dir/k.c.o")
      string(REGEX MATCHALL " -O[0-9sgz]*" flags "${command}")
      string(REPLACE " " "" flags "${flags}")
      set(${out} "${flags}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "no compile of ${target}'s k.c in ${build}/compile_commands.json")
endfunction()

function(configure build type said)
  file(REMOVE_RECURSE ${build})
  set(args -S ${project} -B ${build} -G Ninja -DCMAKE_TOOLCHAIN_FILE=${toolchain} -DIPUSIM_ROOT=${ROOT}
           -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
  if(type)
    list(APPEND args -DCMAKE_BUILD_TYPE=${type})
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "configuring ${build} failed:\n${out}\n${err}")
  endif()
  string(FIND "${out}" "IpuFirmware: no CMAKE_BUILD_TYPE, so tile code is built -O2" at)
  if(said AND at EQUAL -1)
    message(FATAL_ERROR "configuring with no build type did not say tile code is built -O2:\n${out}")
  elseif(NOT said AND NOT at EQUAL -1)
    message(FATAL_ERROR "configuring with build type ${type} spoke of the default optimisation:\n${out}")
  endif()
endfunction()

function(expect build target want)
  o_flags(got ${build} ${target})
  if(NOT "${got}" STREQUAL "${want}")
    message(FATAL_ERROR "${build}: ${target}'s k.c is compiled with '${got}', expected '${want}'")
  endif()
endfunction()

configure(${WORK}/none "" TRUE)
expect(${WORK}/none plain "-O2")       # no build type: optimised, not CMake's bare -O0
expect(${WORK}/none asked "-O3")       # OPTIMIZATION wins
configure(${WORK}/debug Debug FALSE)
expect(${WORK}/debug plain "")         # Debug asks for -O0: no -O at all
expect(${WORK}/debug asked "-O3")
configure(${WORK}/rel RelWithDebInfo FALSE)
expect(${WORK}/rel plain "-O2")        # the build type's own -O2 (CMake's RelWithDebInfo flags)
message(STATUS "ipu_add_firmware optimisation: -O2 with no build type, Debug's none, OPTIMIZATION's own")
