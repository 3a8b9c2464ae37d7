// tp_cuda_execute and tp_cuda_plan_device_bytes: the execution ABI's decoder
// and encoder (execute_abi.h) around the CUDA executor.
#include "addon/cuda_execute_abi.h"

#include "abi/execute_abi.h"
#include "base/result.h"

tp_status tp_cuda_execute(TP_EXECUTE_ABI_PARAMS, tpc::DeviceArena* arena, tp_result** out) {
  tp::ResultBuilder result(TP_RESULT_SPEC(tp_cuda_execute));
  auto run = [&]() -> tp::Status {
    tp::PlanningGraph pg;
    tp::OpSemantics sem;
    tp::ExecRequest req;
    TP_RETURN_IF_ERROR(tp::decode_execute_abi(TP_EXECUTE_ABI_ARGS, &pg, &sem, &req));
    tp::ExecResult res;
    TP_RETURN_IF_ERROR(tpc::execute_cuda(pg, sem, req, arena, &res));
    tp::encode_exec_result(&res, &result);
    return tp::Status::ok();
  };
  return tp::finish_call(run(), &result, out);
}

tp_status tp_cuda_plan_device_bytes(TP_EXECUTE_ABI_PARAMS, tp_result** out) {
  tp::ResultBuilder result(TP_RESULT_SPEC(tp_cuda_plan_device_bytes));
  auto run = [&]() -> tp::Status {
    tp::PlanningGraph pg;
    tp::OpSemantics sem;
    tp::ExecRequest req;
    TP_RETURN_IF_ERROR(tp::decode_execute_abi(TP_EXECUTE_ABI_ARGS, &pg, &sem, &req));
    result.add(std::vector<double>{static_cast<double>(tpc::plan_device_bytes(pg, req.arena_bytes))});
    return tp::Status::ok();
  };
  return tp::finish_call(run(), &result, out);
}
