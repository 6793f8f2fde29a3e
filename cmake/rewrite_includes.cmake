# Install step: the installed headers include each other as <ember/...> names, so that a user's
# include path holds only <prefix>/include and Ember's layer folders (ir/, runtime/, data/, ...)
# never become top-level include names in user projects. The source tree keeps its
# repository-rooted includes ("ir/graph.h"); only the installed copies are rewritten.
set(root "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/include/ember")
file(GLOB_RECURSE headers "${root}/*.h")
foreach(header IN LISTS headers)
  file(READ "${header}" text)
  string(REGEX REPLACE "#include \"(ir|runtime|kernels|autotune|jit|frontend|record|nn|optim|data|import)/"
                       "#include \"ember/\\1/" rewritten "${text}")
  if(NOT rewritten STREQUAL text)
    file(WRITE "${header}" "${rewritten}")
  endif()
endforeach()
