#include <doctest/doctest.h>

#include "tests/json_dom.hpp"
#include "tests/test_support.hpp"

using stepsim::test::run_stepsim;

TEST_CASE("stepsim kernels lists every framework kernel of a DeepSeek-V3 stage with its source") {
  const auto r = run_stepsim("kernels scenarios/deepseek-v3-dualpipe.yaml --stage 3");
  REQUIRE(r.status == 0);
  for (const char* k :
       {"q_down quantize input", "expert_down transpose output grad", "expert_down transpose input",
        "permute", "unpermute backward", "router_topk", "mlp_norm backward", "rope",
        "attn_residual", "attn_core bwd", "expert_up fprop", "expert_up wgrad",
        "mlp_norm (recompute)", "row deepgemm", "fa3", "flashmla", "total: F"}) {
    CAPTURE(k);
    CHECK(r.out.find(k) != std::string::npos);
  }
  CHECK(r.out.find("sustained clock x0.849") != std::string::npos);
  // The last stage holds the head and the MTP module.
  const auto last = run_stepsim("kernels scenarios/deepseek-v3-dualpipe.yaml --stage 15");
  REQUIRE(last.status == 0);
  CHECK(last.out.find("layer 61 (mtp moe)") != std::string::npos);
  CHECK(last.out.find("mtp_proj fprop") != std::string::npos);
  CHECK(last.out.find("mtp_loss") != std::string::npos);
}

TEST_CASE("stepsim kernels: GPT-3 on A100 has no FP8 kernels; JSON and CSV; bad stage") {
  const auto r = run_stepsim("kernels scenarios/gpt3-175b-a100.yaml");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("quantize") == std::string::npos);
  CHECK(r.out.find("mamf-a100") != std::string::npos);
  // Megatron's unfused attention, as the scenario names it; FlashAttention from FlashAttention-2's
  // A100 table, FlashAttention-3 refused (it needs Hopper: the A100 has no table of it).
  for (const char* k : {"attn_core QK^T", "attn_core softmax", "attn_core dropout", "attn_core PV",
                        "attn_core softmax bwd", "attn_core dK"})
    CHECK(r.out.find(k) != std::string::npos);
  const auto flash =
      run_stepsim("kernels scenarios/gpt3-175b-a100.yaml --set training.attention_kernel=flash");
  REQUIRE(flash.status == 0);
  CHECK(flash.out.find("row fa2-a100 fwd causal d128 s2048 155 TFLOP/s") != std::string::npos);
  CHECK(flash.out.find("attn_core QK^T") == std::string::npos);
  const auto fa3 =
      run_stepsim("kernels scenarios/gpt3-175b-a100.yaml --set training.attention_kernel=flash3");
  CHECK(fa3.status == 2);
  CHECK(fa3.err.find("has no attention table from 'flash3'") != std::string::npos);
  CHECK(fa3.err.find("flash2") != std::string::npos);
  const auto j = run_stepsim("kernels scenarios/gpt3-175b-a100.yaml --json");
  REQUIRE(j.status == 0);
  const auto doc = stepsim::test::parse_json(j.out);
  CHECK(doc.at("kernels").size() > 20);
  // Every kernel names its pass, implementation and the table its rate came from; the attention
  // core's kernels name the scenario's attention implementation (Megatron's fused softmax).
  for (const auto& k : doc.at("kernels")) {
    CAPTURE(k.at("kernel").get<std::string>());
    const std::string pass = k.at("pass").get<std::string>();
    CHECK((pass == "fprop" || pass == "dgrad" || pass == "wgrad" || pass == "forward" ||
           pass == "backward"));
    CHECK(!k.at("source").get<std::string>().empty());
    const bool core = k.at("op").get<std::string>() == "attn_core";
    if (core) CHECK(k.at("attention").get<std::string>() == "fused-softmax");
    // The software that ran it: cuBLAS for the GEMMs (the preset's library), the memory tables'
    // for the memory-bound kernels (Liger's RMSNorm for the reductions: norms and the softmax).
    const std::string impl = k.at("implementation").get<std::string>(),
                      name = k.at("kernel").get<std::string>();
    if (k.at("class").get<std::string>() == "gemm")
      CHECK(impl == "cublas");
    else if (name.find("norm") != std::string::npos || name.find("softmax") != std::string::npos)
      CHECK(impl == "liger");
    else
      CHECK(impl == "gpu-benches");
    if (k.at("kernel").get<std::string>().find("wgrad") != std::string::npos)
      CHECK(pass == "wgrad");
  }
  const auto c = run_stepsim("kernels scenarios/gpt3-175b-a100.yaml --csv");
  CHECK(c.out.rfind("layer,phase,op,kernel,class", 0) == 0);
  const auto bad = run_stepsim("kernels scenarios/gpt3-175b-a100.yaml --stage 99");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("--stage 99 is not a stage of this scenario") != std::string::npos);
  CHECK(run_stepsim("kernels scenarios/gpt3-175b-a100.yaml --json --csv").status == 2);
}
