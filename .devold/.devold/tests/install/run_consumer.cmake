# ctest's install test: installs the build tree into a fresh prefix, moves the prefix elsewhere, then
# configures, builds and runs tests/install as a separate project against the moved install.
# -DBUILD_DIR, -DSOURCE_DIR, -DWORK_DIR. Checks on the way:
#  - the umbrella header pulls in neither Boost nor the CUDA headers (its compile time is printed);
#  - the consumer and the README program do not link cuBLAS;
#  - the README's program builds, and runs (it skips itself without a GPU);
#  - with -DPYTHON and -DPYTHON_PACKAGE_DIR, the installed Python package imports and plans, and its
#    extension module does not link cuBLAS either.
file(REMOVE_RECURSE ${WORK_DIR})
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(step_output "${out}${err}" PARENT_SCOPE)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()

# The README's program: the ```cpp block after the line "<!-- program: matmul -->".
file(READ ${SOURCE_DIR}/README.md readme)
string(FIND "${readme}" "<!-- program: matmul -->" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md has no <!-- program: matmul --> block")
endif()
string(SUBSTRING "${readme}" ${at} -1 rest)
string(FIND "${rest}" "```cpp\n" open)
math(EXPR open "${open} + 7")
string(SUBSTRING "${rest}" ${open} -1 rest)
string(FIND "${rest}" "```" close)
string(SUBSTRING "${rest}" 0 ${close} program)
file(WRITE ${WORK_DIR}/readme_matmul.cpp "${program}")

step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/installed)
file(RENAME ${WORK_DIR}/installed ${WORK_DIR}/moved)
step(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install -B ${WORK_DIR}/build -G Ninja
     -DCMAKE_PREFIX_PATH=${WORK_DIR}/moved -DCMAKE_BUILD_TYPE=Release -DREADME_PROGRAM=${WORK_DIR}/readme_matmul.cpp)

string(TIMESTAMP start "%s%f")
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build --target umbrella_only)
string(TIMESTAMP stop "%s%f")
math(EXPR ms "(${stop} - ${start}) / 1000")
string(REGEX MATCHALL "\n\\.+ [^\n]+" headers "${step_output}")
list(LENGTH headers count)
message("umbrella header: ${count} headers, compiled in ${ms} ms (with ninja's start)")
foreach(forbidden "/boost/" "/cuda.h" "cuda_runtime")
  string(FIND "${step_output}" "${forbidden}" found)
  if(NOT found EQUAL -1)
    message(FATAL_ERROR "<tilegrid/tilegrid.h> pulls in ${forbidden}")
  endif()
endforeach()

step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
foreach(program consumer readme_matmul)
  step(ldd ${WORK_DIR}/build/${program})
  if(step_output MATCHES "cublas")
    message(FATAL_ERROR "${program} links cuBLAS:\n${step_output}")
  endif()
endforeach()
step(${WORK_DIR}/build/consumer)
step(${WORK_DIR}/build/readme_matmul)
step(${WORK_DIR}/moved/bin/tilegrid --version)
if(PYTHON)
  step(${CMAKE_COMMAND} -E env PYTHONPATH=${WORK_DIR}/moved/${PYTHON_PACKAGE_DIR} ${PYTHON} -c
       "import tilegrid\nprint('python package:', tilegrid.__file__, tilegrid.plan(64, 64, 64)['kernel']['name'])")
  file(GLOB module ${WORK_DIR}/moved/${PYTHON_PACKAGE_DIR}/tilegrid/_tilegrid*)
  step(ldd ${module})
  if(step_output MATCHES "cublas")
    message(FATAL_ERROR "the Python module links cuBLAS:\n${step_output}")
  endif()
endif()
file(REMOVE_RECURSE ${WORK_DIR})
