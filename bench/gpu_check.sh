#!/bin/bash
# fabperf on a real GPU: libfabric 1.22 built there with CUDA, fabperf run over shm and tcp with
# buffers in GPU memory, and the same runs in host memory beside them (README, "Fabric tests").
# Run from a folder that also holds a stripped fabperf built here, libfmt.so.9 and
# libfabric.tgz (`git archive v1.22.0` of ofiwg/libfabric after ./autogen.sh, fabtests left
# out): copy this script there and run `bash FOLDER/gpu_check.sh` on the GPU machine, $OUT set
# to a folder for the logs. Each step is bounded by timeout; it needs CUDA's nvcc and libcudart.
G=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$G:$LD_LIBRARY_PATH
step() { echo; echo "=== $*"; }
step env; nvidia-smi -L; head -2 /etc/os-release; nproc
CUDA=$(dirname $(dirname $(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)))
echo "CUDA=$CUDA"; ls $CUDA/lib64/libcudart.so* 2>&1 | head -3
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$CUDA/lib64
step build libfabric 1.22 with CUDA
cd /tmp && tar xzf $G/libfabric.tgz && cd libfabric || exit 1
timeout 240 ./configure -q --prefix=/tmp/lf --with-cuda=$CUDA --enable-cuda-dlopen=no \
  --disable-verbs --disable-efa --disable-psm2 --disable-psm3 --disable-opx --disable-usnic \
  --disable-ucx --disable-lpp --disable-cxi --disable-mrail --disable-rxd --disable-udp \
  > $OUT/configure.log 2>&1 || { tail -30 $OUT/configure.log; exit 1; }
grep -E "cuda|CUDA" $OUT/configure.log | tail -5
timeout 300 make -j16 -s install > $OUT/make.log 2>&1 || { tail -30 $OUT/make.log; exit 1; }
export FABPERF_LIBFABRIC=/tmp/lf/lib/libfabric.so.1
/tmp/lf/bin/fi_info -p shm -c FI_HMEM 2>&1 | head -8
/tmp/lf/bin/fi_info -p tcp -c FI_HMEM 2>&1 | head -4
cd $G; ln -sf fabperf fab_write_bw; ln -sf fabperf fab_loopback_bw; ln -sf fabperf fab_read_lat
F=$G/fabperf
for p in shm tcp; do
  step "$p host memory"; timeout 60 $F --loopback -P $p -t 0.5 -oo msg_size:64:1M:*16 rdm_write_bw rdm_write_lat
  step "$p GPU 0 both sides, verify"; timeout 60 $F --loopback -P $p --gpu 0 --verify -t 0.5 \
    rdm_send_bw rdm_write_bw rdm_read_bw rdm_write_lat rdm_read_lat rdm_send_lat
  step "$p GPU sweep"; timeout 60 $F --loopback -P $p --gpu 0 -t 0.5 -oo msg_size:64:1M:*16 \
    rdm_write_bw rdm_write_lat --json $OUT/gpu-$p.json
done
step "fab_loopback_bw host, then GPU"; timeout 60 ./fab_loopback_bw -P shm -s 4096:1048576 -i 5
timeout 60 ./fab_loopback_bw -P shm -s 4096:1048576 -i 5 -t 0 -r 0 -g NVIDIA
step "fab_write_bw server GPU rx, client GPU tx (shm)"
timeout 60 ./fab_write_bw -P shm -p 49311 -r 0 > $OUT/fab_server.txt 2>&1 &
sleep 2; timeout 60 ./fab_write_bw -P shm -p 49311 -t 0 127.0.0.1; echo "client rc=$?"; wait; echo "--- server"; cat $OUT/fab_server.txt
step "fab_read_lat GPU"; timeout 60 ./fab_read_lat -P shm -p 49312 -r 0 > $OUT/fab_rl.txt 2>&1 &
sleep 2; timeout 60 ./fab_read_lat -P shm -p 49312 -t 0 -D 1 127.0.0.1; echo "client rc=$?"; wait
step "errors: GPU 7, AMD"
timeout 30 $F --loopback -P shm --gpu 7 -t 0.2 rdm_write_bw; echo "rc=$?"
timeout 30 $F --loopback -P shm --gpu AMD:0 -t 0.2 rdm_write_bw; echo "rc=$?"
true
