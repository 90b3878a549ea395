vllm serve Qwen/Qwen3.5-35B-A3B-FP8 \
    --reasoning-parser=qwen3 \
    --speculative-config={"method":"mtp","num_speculative_tokens":1} \
    --max-model-len=32768
