# bundle 531bcad; bench/gpu-ncu.sh with the S=8192 decode cases (commit af250e5)
NCU_CASES="dec128s8k dec64s8k dec512s8k dec128s8k-read" bash bench/gpu-ncu.sh
