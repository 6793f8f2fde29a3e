source scripts/gpu-env.sh >/dev/null
export NCCL_NVLS_ENABLE=0
nccl_dir=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0] + "/lib")' 2>/dev/null)
export LD_LIBRARY_PATH=$nccl_dir:${LD_LIBRARY_PATH:-}
export EMBER_CACHE_DIR=/tmp/ember-cache
start=$(date +%s)
( EMBER_DIST_TEST_DIE=1 EMBER_NCCL_TIMEOUT_S=20 EMBER_DEVICE=cuda scripts/dist-run.sh --grace 60 2 gpu-bundle/bin/dist_tests --gtest_filter='DistRanks.PeerDeath*' > $OUT/peer.txt 2>&1; echo "exit $? after $(($(date +%s) - start)) s" >> $OUT/peer.txt ) &
sleep 50
for p in $(pgrep -f 'bin/dist_tests'); do
  echo "== pid $p alive at 50 s"; cat /proc/$p/status | grep State
  which gdb >/dev/null && timeout 30 gdb -p $p -batch -ex "thread apply all bt 12" 2>&1 | grep -E "^#|^Thread" | head -80
  for t in /proc/$p/task/*; do echo "$t $(cat $t/wchan) $(cat $t/comm)"; done
done
wait
cat $OUT/peer.txt | grep -vE "^\[.\] \[ RUN|^\[.\] Note" | tail -20
