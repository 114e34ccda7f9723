# SPDX-License-Identifier: MIT
# The model performs no I/O and reads no clock (pmu.h): libsoftpmu imports
# no function of the C library or the kernel interface that does. Fails
# naming each such import. -DNM=<nm> -DLIB=<libsoftpmu.so>
execute_process(COMMAND ${NM} -D --undefined-only ${LIB}
  OUTPUT_VARIABLE imports RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${LIB} (${rc})")
endif()
set(io_functions
  open open64 openat openat64 creat close read write pread pread64 pwrite
  pwrite64 readv writev lseek lseek64 ioctl fcntl mmap mmap64 munmap
  stat stat64 fstat fstat64 socket connect send recv sendto recvfrom
  fopen fopen64 fdopen freopen fclose fread fwrite fgets fgetc fputs fputc
  fprintf vfprintf printf vprintf puts putchar getchar scanf fscanf
  fflush perror getenv dlopen syscall
  time gettimeofday clock clock_gettime rdtsc)
set(found "")
foreach(f ${io_functions})
  if(imports MATCHES "(^|\n) *U ${f}(@[^\n]*)?(\n|$)")
    list(APPEND found ${f})
  endif()
endforeach()
if(found)
  message(FATAL_ERROR "libsoftpmu imports I/O or clock functions: ${found}")
endif()
message(STATUS "libsoftpmu imports no I/O or clock function")
