set -u
W=/tmp/w93; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
SP="--specialize=bits=4,groupSize=64,dtype=0,ks=16,wps=8,stages=3"
$T ptx $SP sirocco.kernels.quant.QmmMmaAsyncKernel::qmm > $W/k.ptx 2>$W/ptx.err; sed -i '/^\/\/ resources/d' $W/k.ptx
/usr/local/cuda/bin/ptxas -arch=sm_90 -v $W/k.ptx -o $W/k.cubin > $W/ptxas.txt 2>&1; echo "ptxas rc=$?"; tail -2 $W/ptxas.txt
/usr/local/cuda/bin/cuobjdump -sass $W/k.cubin > $W/k.sass 2>&1; echo "sass lines $(wc -l < $W/k.sass)"
grep -nE "BRA|BAR|EXIT|LDGSTS|DEPBAR" $W/k.sass | cut -c1-90 | head -40
cd $W && tar czf $OUT/call93.tgz .
