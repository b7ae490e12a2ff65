#!/usr/bin/env bash
# Captures the real outputs the example filters are written against, into
# examples/filters/captures/ (stdout only, as a shim sees it). Run from the
# repository root: examples/filters/capture.sh
set -u
out="$(cd "$(dirname "$0")" && pwd)/captures"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

# cmake: configuring a small C project (and one that fails to configure).
mkdir -p proj/src bad
cat > proj/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.10)
project(demo C CXX)
include(CheckIncludeFile)
include(CheckFunctionExists)
include(CheckSymbolExists)
foreach(h stdio.h stdlib.h string.h unistd.h fcntl.h sys/types.h sys/stat.h pthread.h dlfcn.h)
  string(MAKE_C_IDENTIFIER "HAVE_${h}" var)
  check_include_file(${h} ${var})
endforeach()
foreach(f mmap strdup strndup getline posix_memalign)
  check_function_exists(${f} HAVE_${f})
endforeach()
find_package(Threads REQUIRED)
add_executable(demo src/main.c)
CM
echo 'int main(void){return 0;}' > proj/src/main.c
cmake -S proj -B proj/build > "$out/cmake-configure.txt" 2>/dev/null
cat > bad/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.10)
project(bad C)
include(CheckIncludeFile)
check_include_file(stdio.h HAVE_STDIO_H)
find_package(NoSuchLibraryAnywhere REQUIRED)
CM
cmake -S bad -B bad/build > "$out/cmake-configure-error.txt" 2>&1

# openssl: a self-signed certificate printed as text.
openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 30 \
  -subj "/C=DE/O=Example/CN=demo.example.org" -addext "subjectAltName=DNS:demo.example.org,DNS:www.example.org" 2>/dev/null
openssl x509 -in cert.pem -text -noout > "$out/openssl-x509-text.txt"

# dpkg -l: the installed packages of this machine (first 300 lines).
COLUMNS=160 dpkg -l | head -300 > "$out/dpkg-l.txt"

# zip -r and tar -xvzf over a tree of small files.
mkdir -p tree
for d in docs src/core src/util tests assets/img; do mkdir -p "tree/$d"; done
for i in $(seq 1 40); do head -c $((i * 300)) /dev/urandom | base64 > "tree/src/core/mod$i.txt"; done
for i in $(seq 1 25); do seq 1 $((i * 50)) > "tree/docs/page$i.md"; done
for i in $(seq 1 15); do head -c 2000 /dev/urandom > "tree/assets/img/pic$i.bin"; done
for i in $(seq 1 20); do echo "test $i" > "tree/tests/t$i.sh"; done
zip -r tree.zip tree > "$out/zip-r.txt"
tar -czf tree.tgz tree
mkdir x && tar -xvzf tree.tgz -C x > "$out/tar-xvzf.txt"
echo "captured into $out"
