package sirocco.dispatch.cudnn;

import java.util.Map;

/**
 * The numeric values of the cuDNN 9 backend API that Sirocco relies on, and their names for error
 * messages.
 *
 * <p>Source of every value: {@code cudnn_graph.h} of cuDNN 9 (read from the copy shipped with cuDNN
 * 9.6.0, the enums {@code cudnnStatus_t}, {@code cudnnDataType_t}, {@code cudnnPointwiseMode_t},
 * {@code cudnnReduceTensorOp_t}, {@code cudnnBackendAttributeName_t}, {@code
 * cudnnBackendAttributeType_t}, {@code cudnnBackendDescriptorType_t}, {@code
 * cudnnBackendHeurMode_t}, {@code cudnnBackendBehaviorNote_t}). cuDNN keeps these values stable
 * within a major version (new entries are appended; attribute names carry explicit numbers), so the
 * 9.6 values hold for the 9.14 library on the GPU machine. The GPU tests exercise every one of them
 * (a wrong value fails descriptor finalization with BAD_PARAM, which the tests report).
 *
 * <p>Enums whose C declaration has no explicit numbers ({@code cudnnBackendAttributeType_t}, {@code
 * cudnnBackendDescriptorType_t}) are numbered here by their position in the header.
 */
final class CudnnConstants {
  private CudnnConstants() {}

  // ---- cudnnStatus_t (cudnn_graph.h) ----
  static final int STATUS_SUCCESS = 0;
  static final int STATUS_NOT_INITIALIZED = 1001;
  static final int STATUS_SUBLIBRARY_VERSION_MISMATCH = 1002;
  static final int STATUS_SUBLIBRARY_LOADING_FAILED = 1008;
  static final int STATUS_BAD_PARAM = 2000;
  static final int STATUS_BAD_PARAM_NULL_POINTER = 2002;
  static final int STATUS_BAD_PARAM_MISALIGNED_POINTER = 2003;
  static final int STATUS_BAD_PARAM_NOT_FINALIZED = 2004;
  static final int STATUS_BAD_PARAM_ATTRIBUTE_TYPE = 2010;
  static final int STATUS_NOT_SUPPORTED = 3000;
  static final int STATUS_NOT_SUPPORTED_GRAPH_PATTERN = 3001;
  static final int STATUS_NOT_SUPPORTED_SHAPE = 3002;
  static final int STATUS_NOT_SUPPORTED_ARCH_MISMATCH = 3007;
  static final int STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING = 3008;
  static final int STATUS_INTERNAL_ERROR = 4000;
  static final int STATUS_EXECUTION_FAILED = 5000;

  private static final Map<Integer, String> STATUS_NAMES =
      Map.ofEntries(
          Map.entry(0, "CUDNN_STATUS_SUCCESS"),
          Map.entry(1001, "CUDNN_STATUS_NOT_INITIALIZED"),
          Map.entry(1002, "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH"),
          Map.entry(1003, "CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH"),
          Map.entry(1004, "CUDNN_STATUS_DEPRECATED"),
          Map.entry(1005, "CUDNN_STATUS_LICENSE_ERROR"),
          Map.entry(1006, "CUDNN_STATUS_RUNTIME_IN_PROGRESS"),
          Map.entry(1007, "CUDNN_STATUS_RUNTIME_FP_OVERFLOW"),
          Map.entry(1008, "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED"),
          Map.entry(2000, "CUDNN_STATUS_BAD_PARAM"),
          Map.entry(2001, "CUDNN_STATUS_INVALID_VALUE"),
          Map.entry(2002, "CUDNN_STATUS_BAD_PARAM_NULL_POINTER"),
          Map.entry(2003, "CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER"),
          Map.entry(2004, "CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED"),
          Map.entry(2005, "CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND"),
          Map.entry(2006, "CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT"),
          Map.entry(2007, "CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH"),
          Map.entry(2008, "CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH"),
          Map.entry(2009, "CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES"),
          Map.entry(2010, "CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE"),
          Map.entry(2011, "CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH"),
          Map.entry(2012, "CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE"),
          Map.entry(3000, "CUDNN_STATUS_NOT_SUPPORTED"),
          Map.entry(3001, "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN"),
          Map.entry(3002, "CUDNN_STATUS_NOT_SUPPORTED_SHAPE"),
          Map.entry(3003, "CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE"),
          Map.entry(3004, "CUDNN_STATUS_NOT_SUPPORTED_LAYOUT"),
          Map.entry(3005, "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER"),
          Map.entry(3006, "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART"),
          Map.entry(3007, "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH"),
          Map.entry(3008, "CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING"),
          Map.entry(3009, "CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE"),
          Map.entry(3010, "CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT"),
          Map.entry(3011, "CUDNN_STATUS_NOT_SUPPORTED_PADDING"),
          Map.entry(3012, "CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM"),
          Map.entry(3013, "CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API"),
          Map.entry(4000, "CUDNN_STATUS_INTERNAL_ERROR"),
          Map.entry(4001, "CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED"),
          Map.entry(4002, "CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE"),
          Map.entry(4003, "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED"),
          Map.entry(4004, "CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED"),
          Map.entry(4005, "CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM"),
          Map.entry(4006, "CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED"),
          Map.entry(5000, "CUDNN_STATUS_EXECUTION_FAILED"),
          Map.entry(5001, "CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER"),
          Map.entry(5002, "CUDNN_STATUS_EXECUTION_FAILED_CUBLAS"),
          Map.entry(5003, "CUDNN_STATUS_EXECUTION_FAILED_CUDART"),
          Map.entry(5004, "CUDNN_STATUS_EXECUTION_FAILED_CURAND"));

  /** True for the 3xxx family: the library declines the graph or shape (a normal outcome). */
  static boolean isNotSupported(int status) {
    return status / 1000 == 3;
  }

  // ---- cudnnDataType_t (cudnn_graph.h) ----
  static final int DATA_FLOAT = 0;
  static final int DATA_DOUBLE = 1;
  static final int DATA_HALF = 2;
  static final int DATA_INT8 = 3;
  static final int DATA_INT32 = 4;
  static final int DATA_UINT8 = 6;
  static final int DATA_BFLOAT16 = 9;
  static final int DATA_INT64 = 10;
  static final int DATA_BOOLEAN = 11;

  private static final Map<Integer, String> DATA_TYPE_NAMES =
      Map.of(
          0,
          "FLOAT",
          1,
          "DOUBLE",
          2,
          "HALF",
          3,
          "INT8",
          4,
          "INT32",
          6,
          "UINT8",
          9,
          "BFLOAT16",
          10,
          "INT64",
          11,
          "BOOLEAN");

  // ---- cudnnPointwiseMode_t (cudnn_graph.h) ----
  static final int PW_ADD = 0;
  static final int PW_MUL = 1;
  static final int PW_DIV = 6;
  static final int PW_SUB = 9;
  static final int PW_EXP = 13;
  static final int PW_LOG = 15;
  static final int PW_CMP_GE = 303;
  static final int PW_GEN_INDEX = 501;
  static final int PW_BINARY_SELECT = 601;

  private static final Map<Integer, String> POINTWISE_NAMES =
      Map.of(
          0,
          "ADD",
          1,
          "MUL",
          6,
          "DIV",
          9,
          "SUB",
          13,
          "EXP",
          15,
          "LOG",
          303,
          "CMP_GE",
          501,
          "GEN_INDEX",
          601,
          "BINARY_SELECT");

  // ---- cudnnReduceTensorOp_t (cudnn_graph.h), the values of CUDNN_TYPE_REDUCTION_OPERATOR_TYPE
  // ----
  static final int REDUCE_ADD = 0;
  static final int REDUCE_MAX = 3;

  // ---- cudnnBackendHeurMode_t (cudnn_graph.h) ----
  static final int HEUR_MODE_INSTANT = 0;
  static final int HEUR_MODE_B = 1;
  static final int HEUR_MODE_FALLBACK = 2;
  static final int HEUR_MODE_A = 3;

  // ---- cudnnBackendBehaviorNote_t (cudnn_graph.h) ----
  static final int BEHAVIOR_NOTE_RUNTIME_COMPILATION = 0;
  static final int BEHAVIOR_NOTE_SUPPORTS_CUDA_GRAPH_NATIVE_API = 3;

  // ---- cudnnBackendAttributeType_t (cudnn_graph.h; implicit numbering, by position) ----
  static final int TYPE_HANDLE = 0;
  static final int TYPE_DATA_TYPE = 1;
  static final int TYPE_BOOLEAN = 2;
  static final int TYPE_INT64 = 3;
  static final int TYPE_FLOAT = 4;
  static final int TYPE_DOUBLE = 5;
  static final int TYPE_VOID_PTR = 6;
  static final int TYPE_HEUR_MODE = 8;
  static final int TYPE_KNOB_TYPE = 9;
  static final int TYPE_NUMERICAL_NOTE = 11;
  static final int TYPE_POINTWISE_MODE = 14;
  static final int TYPE_BACKEND_DESCRIPTOR = 15;
  static final int TYPE_REDUCTION_OPERATOR_TYPE = 18;
  static final int TYPE_BEHAVIOR_NOTE = 19;
  static final int TYPE_INT32 = 23;
  static final int TYPE_CHAR = 24;

  private static final Map<Integer, String> ATTRIBUTE_TYPE_NAMES =
      Map.ofEntries(
          Map.entry(0, "HANDLE"),
          Map.entry(1, "DATA_TYPE"),
          Map.entry(2, "BOOLEAN"),
          Map.entry(3, "INT64"),
          Map.entry(4, "FLOAT"),
          Map.entry(5, "DOUBLE"),
          Map.entry(6, "VOID_PTR"),
          Map.entry(8, "HEUR_MODE"),
          Map.entry(9, "KNOB_TYPE"),
          Map.entry(11, "NUMERICAL_NOTE"),
          Map.entry(14, "POINTWISE_MODE"),
          Map.entry(15, "BACKEND_DESCRIPTOR"),
          Map.entry(18, "REDUCTION_OPERATOR_TYPE"),
          Map.entry(19, "BEHAVIOR_NOTE"),
          Map.entry(23, "INT32"),
          Map.entry(24, "CHAR"));

  /**
   * Bytes one element of an attribute type occupies in the {@code arrayOfElements} buffer: C enums
   * are 4 bytes, {@code bool} 1, handles and pointers 8 (LP64).
   */
  static int elementBytes(int attributeType) {
    return switch (attributeType) {
      case TYPE_BOOLEAN, TYPE_CHAR -> 1;
      case TYPE_INT64, TYPE_DOUBLE, TYPE_HANDLE, TYPE_VOID_PTR, TYPE_BACKEND_DESCRIPTOR -> 8;
      default -> 4; // FLOAT, INT32 and every C enum (DATA_TYPE, POINTWISE_MODE, HEUR_MODE, ...)
    };
  }

  // ---- cudnnBackendDescriptorType_t (cudnn_graph.h; implicit numbering, by position) ----
  static final int POINTWISE_DESCRIPTOR = 0;
  static final int ENGINE_DESCRIPTOR = 2;
  static final int ENGINECFG_DESCRIPTOR = 3;
  static final int ENGINEHEUR_DESCRIPTOR = 4;
  static final int EXECUTION_PLAN_DESCRIPTOR = 5;
  static final int KNOB_CHOICE_DESCRIPTOR = 7;
  static final int OPERATION_POINTWISE_DESCRIPTOR = 13;
  static final int OPERATIONGRAPH_DESCRIPTOR = 15;
  static final int VARIANT_PACK_DESCRIPTOR = 16;
  static final int TENSOR_DESCRIPTOR = 17;
  static final int MATMUL_DESCRIPTOR = 18;
  static final int OPERATION_MATMUL_DESCRIPTOR = 19;
  static final int REDUCTION_DESCRIPTOR = 21;
  static final int OPERATION_REDUCTION_DESCRIPTOR = 22;

  private static final Map<Integer, String> DESCRIPTOR_TYPE_NAMES =
      Map.ofEntries(
          Map.entry(0, "CUDNN_BACKEND_POINTWISE_DESCRIPTOR"),
          Map.entry(2, "CUDNN_BACKEND_ENGINE_DESCRIPTOR"),
          Map.entry(3, "CUDNN_BACKEND_ENGINECFG_DESCRIPTOR"),
          Map.entry(4, "CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR"),
          Map.entry(5, "CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR"),
          Map.entry(7, "CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR"),
          Map.entry(13, "CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR"),
          Map.entry(15, "CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR"),
          Map.entry(16, "CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR"),
          Map.entry(17, "CUDNN_BACKEND_TENSOR_DESCRIPTOR"),
          Map.entry(18, "CUDNN_BACKEND_MATMUL_DESCRIPTOR"),
          Map.entry(19, "CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR"),
          Map.entry(21, "CUDNN_BACKEND_REDUCTION_DESCRIPTOR"),
          Map.entry(22, "CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR"));

  // ---- cudnnBackendAttributeName_t (cudnn_graph.h; explicit numbers) ----
  static final int ATTR_POINTWISE_MODE = 0;
  static final int ATTR_POINTWISE_MATH_PREC = 1;
  static final int ATTR_POINTWISE_AXIS = 9;

  static final int ATTR_ENGINEHEUR_MODE = 200;
  static final int ATTR_ENGINEHEUR_OPERATION_GRAPH = 201;
  static final int ATTR_ENGINEHEUR_RESULTS = 202;

  static final int ATTR_ENGINECFG_ENGINE = 300;
  static final int ATTR_ENGINECFG_KNOB_CHOICES = 302;
  static final int ATTR_ENGINECFG_WORKSPACE_SIZE = 303;

  static final int ATTR_EXECUTION_PLAN_HANDLE = 400;
  static final int ATTR_EXECUTION_PLAN_ENGINE_CONFIG = 401;
  static final int ATTR_EXECUTION_PLAN_WORKSPACE_SIZE = 402;
  static final int ATTR_EXECUTION_PLAN_JSON_REPRESENTATION = 405;

  static final int ATTR_KNOB_CHOICE_KNOB_TYPE = 600;
  static final int ATTR_KNOB_CHOICE_KNOB_VALUE = 601;

  static final int ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR = 750;
  static final int ATTR_OPERATION_POINTWISE_XDESC = 751;
  static final int ATTR_OPERATION_POINTWISE_BDESC = 752;
  static final int ATTR_OPERATION_POINTWISE_YDESC = 753;
  static final int ATTR_OPERATION_POINTWISE_ALPHA1 = 754;
  static final int ATTR_OPERATION_POINTWISE_ALPHA2 = 755;
  static final int ATTR_OPERATION_POINTWISE_TDESC = 758;

  static final int ATTR_OPERATIONGRAPH_HANDLE = 800;
  static final int ATTR_OPERATIONGRAPH_OPS = 801;

  static final int ATTR_TENSOR_BYTE_ALIGNMENT = 900;
  static final int ATTR_TENSOR_DATA_TYPE = 901;
  static final int ATTR_TENSOR_DIMENSIONS = 902;
  static final int ATTR_TENSOR_STRIDES = 903;
  static final int ATTR_TENSOR_UNIQUE_ID = 906;
  static final int ATTR_TENSOR_IS_VIRTUAL = 907;
  static final int ATTR_TENSOR_IS_BY_VALUE = 908;

  static final int ATTR_VARIANT_PACK_UNIQUE_IDS = 1000;
  static final int ATTR_VARIANT_PACK_DATA_POINTERS = 1001;
  static final int ATTR_VARIANT_PACK_WORKSPACE = 1003;

  static final int ATTR_ENGINE_GLOBAL_INDEX = 1301;
  static final int ATTR_ENGINE_NUMERICAL_NOTE = 1303;
  static final int ATTR_ENGINE_BEHAVIOR_NOTE = 1305;

  static final int ATTR_MATMUL_COMP_TYPE = 1500;

  static final int ATTR_OPERATION_MATMUL_ADESC = 1520;
  static final int ATTR_OPERATION_MATMUL_BDESC = 1521;
  static final int ATTR_OPERATION_MATMUL_CDESC = 1522;
  static final int ATTR_OPERATION_MATMUL_DESC = 1523;

  static final int ATTR_REDUCTION_OPERATOR = 1600;
  static final int ATTR_REDUCTION_COMP_TYPE = 1601;

  static final int ATTR_OPERATION_REDUCTION_XDESC = 1610;
  static final int ATTR_OPERATION_REDUCTION_YDESC = 1611;
  static final int ATTR_OPERATION_REDUCTION_DESC = 1612;

  private static final Map<Integer, String> ATTRIBUTE_NAMES =
      Map.ofEntries(
          Map.entry(0, "CUDNN_ATTR_POINTWISE_MODE"),
          Map.entry(1, "CUDNN_ATTR_POINTWISE_MATH_PREC"),
          Map.entry(9, "CUDNN_ATTR_POINTWISE_AXIS"),
          Map.entry(200, "CUDNN_ATTR_ENGINEHEUR_MODE"),
          Map.entry(201, "CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH"),
          Map.entry(202, "CUDNN_ATTR_ENGINEHEUR_RESULTS"),
          Map.entry(300, "CUDNN_ATTR_ENGINECFG_ENGINE"),
          Map.entry(302, "CUDNN_ATTR_ENGINECFG_KNOB_CHOICES"),
          Map.entry(303, "CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE"),
          Map.entry(400, "CUDNN_ATTR_EXECUTION_PLAN_HANDLE"),
          Map.entry(401, "CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG"),
          Map.entry(402, "CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE"),
          Map.entry(405, "CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION"),
          Map.entry(600, "CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE"),
          Map.entry(601, "CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE"),
          Map.entry(750, "CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR"),
          Map.entry(751, "CUDNN_ATTR_OPERATION_POINTWISE_XDESC"),
          Map.entry(752, "CUDNN_ATTR_OPERATION_POINTWISE_BDESC"),
          Map.entry(753, "CUDNN_ATTR_OPERATION_POINTWISE_YDESC"),
          Map.entry(754, "CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1"),
          Map.entry(755, "CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2"),
          Map.entry(758, "CUDNN_ATTR_OPERATION_POINTWISE_TDESC"),
          Map.entry(800, "CUDNN_ATTR_OPERATIONGRAPH_HANDLE"),
          Map.entry(801, "CUDNN_ATTR_OPERATIONGRAPH_OPS"),
          Map.entry(900, "CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT"),
          Map.entry(901, "CUDNN_ATTR_TENSOR_DATA_TYPE"),
          Map.entry(902, "CUDNN_ATTR_TENSOR_DIMENSIONS"),
          Map.entry(903, "CUDNN_ATTR_TENSOR_STRIDES"),
          Map.entry(906, "CUDNN_ATTR_TENSOR_UNIQUE_ID"),
          Map.entry(907, "CUDNN_ATTR_TENSOR_IS_VIRTUAL"),
          Map.entry(908, "CUDNN_ATTR_TENSOR_IS_BY_VALUE"),
          Map.entry(1000, "CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS"),
          Map.entry(1001, "CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS"),
          Map.entry(1003, "CUDNN_ATTR_VARIANT_PACK_WORKSPACE"),
          Map.entry(1301, "CUDNN_ATTR_ENGINE_GLOBAL_INDEX"),
          Map.entry(1303, "CUDNN_ATTR_ENGINE_NUMERICAL_NOTE"),
          Map.entry(1305, "CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE"),
          Map.entry(1500, "CUDNN_ATTR_MATMUL_COMP_TYPE"),
          Map.entry(1520, "CUDNN_ATTR_OPERATION_MATMUL_ADESC"),
          Map.entry(1521, "CUDNN_ATTR_OPERATION_MATMUL_BDESC"),
          Map.entry(1522, "CUDNN_ATTR_OPERATION_MATMUL_CDESC"),
          Map.entry(1523, "CUDNN_ATTR_OPERATION_MATMUL_DESC"),
          Map.entry(1600, "CUDNN_ATTR_REDUCTION_OPERATOR"),
          Map.entry(1601, "CUDNN_ATTR_REDUCTION_COMP_TYPE"),
          Map.entry(1610, "CUDNN_ATTR_OPERATION_REDUCTION_XDESC"),
          Map.entry(1611, "CUDNN_ATTR_OPERATION_REDUCTION_YDESC"),
          Map.entry(1612, "CUDNN_ATTR_OPERATION_REDUCTION_DESC"));

  // ---- names for messages ----

  /** {@code CUDNN_STATUS_...} for a status code (cuDNN's own table, used without the library). */
  static String statusName(int status) {
    return STATUS_NAMES.getOrDefault(status, "CUDNN_STATUS_" + status);
  }

  static String descriptorTypeName(int type) {
    return DESCRIPTOR_TYPE_NAMES.getOrDefault(type, "descriptor type " + type);
  }

  static String attributeName(int attribute) {
    return ATTRIBUTE_NAMES.getOrDefault(attribute, "attribute " + attribute);
  }

  static String attributeTypeName(int type) {
    return ATTRIBUTE_TYPE_NAMES.getOrDefault(type, "type " + type);
  }

  static String dataTypeName(int dataType) {
    return DATA_TYPE_NAMES.getOrDefault(dataType, "data type " + dataType);
  }

  static String pointwiseModeName(int mode) {
    return POINTWISE_NAMES.getOrDefault(mode, "pointwise mode " + mode);
  }

  /** "9.14.0" from cudnnGetVersion's 91400 (major·10000 + minor·100 + patch since cuDNN 9). */
  static String versionString(long version) {
    if (version <= 0) {
      return "unknown";
    }
    return (version / 10000) + "." + (version / 100) % 100 + "." + version % 100;
  }
}
