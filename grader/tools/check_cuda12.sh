#!/usr/bin/env bash
# The project still builds with CUDA 12 (the README promises 12.0 or newer; most students have a
# 12.x toolkit). Debian's CUDA 12.4 packages (trixie, non-free; CUB from main) are unpacked into a
# folder, nothing installed, and the project is configured with that nvcc alone on PATH:
#   - configure names CUDA 12.4 and the architectures it builds for (70 to 90, no 100+);
#   - the runner side (CUPTI 12.4, whose memcpy record is CUpti_ActivityMemcpy5) and the checkers
#     of labs 01 and 05 compile and link;
#   - every lab's launches fit every architecture CUDA 12.4 builds for (launch_fit.py).
# Needs network access to a Debian mirror (DEBIAN_MIRROR) and about 3 GB of disk; no GPU, no root.
# Usage: grader/tools/check_cuda12.sh   (CUDA12_WORK=DIR keeps the downloads between runs)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=${CUDA12_WORK:-$(mktemp -d)}
mkdir -p "$work/debs" "$work/tree"
toolkit=$work/cuda-12.4

index() {  # index COMPONENT ARCH: the Packages file of Debian trixie, fetched once
  local file=$work/Packages-$1-$2
  [ -s "$file" ] || curl -fsS "$mirror/dists/trixie/$1/binary-$2/Packages.xz" | xz -d > "$file"
  echo "$file"
}
fetch() {  # fetch INDEX PACKAGE: the .deb of PACKAGE, downloaded once; prints its path
  local path
  path=$(awk -v p="$2" '$1 == "Package:" { hit = ($2 == p) } hit && $1 == "Filename:" { print $2; exit }' "$1")
  [ -n "$path" ] || { echo "error: $2 is not in $1" >&2; exit 1; }
  [ -s "$work/debs/$(basename "$path")" ] || curl -fsS -o "$work/debs/$(basename "$path")" "$mirror/$path"
  echo "$work/debs/$(basename "$path")"
}

nonfree=$(index non-free amd64)
main=$(index main all)
for package in nvidia-cuda-toolkit libcudart12 libcupti12 libcupti-dev; do
  dpkg-deb -x "$(fetch "$nonfree" "$package")" "$work/tree"
done
for package in libcu++-dev libcub-dev libthrust-dev; do
  dpkg-deb -x "$(fetch "$main" "$package")" "$work/tree"
done
# nvidia-cuda-dev is 0.9 GB: only its headers and the CUDA runtime's libraries are unpacked.
dpkg-deb --fsys-tarfile "$(fetch "$nonfree" nvidia-cuda-dev)" |
  tar -x -C "$work/tree" ./usr/include --wildcards './usr/lib/x86_64-linux-gnu/libcudart*' \
      './usr/lib/x86_64-linux-gnu/libcudadevrt*'

# Debian's nvcc expects /usr/lib/nvidia-cuda-toolkit and /usr/include; a toolkit folder of the
# usual shape (bin, include, lib) with an nvcc.profile relative to itself works from anywhere.
tree=$work/tree/usr
rm -rf "$toolkit" && mkdir -p "$toolkit/bin" "$toolkit/lib"
cp -a "$tree"/lib/nvidia-cuda-toolkit/bin/{nvcc,cicc,crt} "$toolkit/bin/"
for tool in ptxas fatbinary cudafe++ nvlink bin2c cuobjdump nvdisasm nvprune cu++filt; do
  cp -a "$tree/bin/$tool" "$toolkit/bin/"
done
cp -a "$tree/lib/nvidia-cuda-toolkit/libdevice" "$toolkit/"
cp -a "$tree"/lib/x86_64-linux-gnu/lib{cudart,cudadevrt,cupti}* "$toolkit/lib/"
ln -s "$tree/include" "$toolkit/include"
cat > "$toolkit/bin/nvcc.profile" <<'EOF'
TOP                = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/libdevice
PATH              += $(_HERE_):
INCLUDES          += "-I$(TOP)/include" $(_SPACE_)
LIBRARIES          =+ $(_SPACE_) "-L$(TOP)/lib"
EOF
"$toolkit/bin/nvcc" --version | tail -2

build=$work/build
rm -rf "$build"
PATH=$toolkit/bin:$PATH meson setup "$build" -Dkernel_backend=cuda -Dgpu_archs=75 > "$work/setup.log" 2>&1 ||
  { tail -30 "$work/setup.log"; exit 1; }
grep -q "CUDA 12.4 ($toolkit/bin/nvcc) builds for 70, 72, 75, 80, 86, 87, 89, 90$" "$work/setup.log" ||
  { grep -i "cuda" "$work/setup.log"; echo "error: configure did not name CUDA 12.4 and its architectures"; exit 1; }
PATH=$toolkit/bin:$PATH ninja -C "$build" grader/grader_yardstick_runner \
  labs/lab01_runner_solutions labs/lab01_checker labs/lab05_runner_solutions labs/lab05_checker
PATH=$toolkit/bin:$PATH meson test -C "$build" --no-rebuild --suite portability --print-errorlogs
echo "CUDA 12.4: configured (archs 70-90), the runner and the checkers of labs 01 and 05 built, every launch fits"
