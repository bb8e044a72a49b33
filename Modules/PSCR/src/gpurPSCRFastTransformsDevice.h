// SPDX-License-Identifier: Apache-2.0
// The fast-transform path of PSCRSolver on an OpenCL device (internal; the
// CPU's is gpurPSCRFastTransforms.h, whose axis detection it shares). Each
// transformed axis runs as a real FFT of its symmetrically extended lines
// (gpur::FFTPlan, VkFFT, in place in the padded r2c layout) between a pack
// and an unpack kernel (kernels/pscr_fast.cl): the DST-I for Dirichlet at
// both ends, the DCT-II and its inverse, the DCT-III, for the reflecting
// Neumann condition [Strang1999]. With every axis transformed the modes are
// divided by c + sum of the axes' eigenvalues; with one axis left, its
// shifted tridiagonal systems, one per mode of the others, are solved by the
// module's batched device solver; with two left (3D), their PSCR problems,
// one per mode of the third axis, by the device PSCR solver in one batch.
#ifndef gpurPSCRFastTransformsDevice_h
#define gpurPSCRFastTransformsDevice_h

#include "gpurBuffer.h"
#include "gpurFFT.h"
#include "gpurPSCRFastTransforms.h"
#include "gpurPSCRPlan.h"
#include "gpurProgram.h"
#include "gpurSeparableOperator.h"

#include <complex>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace gpur
{

template<typename Scalar>
class TridiagonalDeviceSolver;
template<typename Scalar>
class PSCRDeviceSolver;

/**
 * Whether the device path takes an operator whose axes have `trig`: at least
 * one axis transformed (so at most two left), and every
 * transform's FFT (2 (n + 1) points for the DST-I, 2 n for the DCT-II) within
 * FFTDeviceAxisLimit in double (the precision of every PSCR solver's checks
 * and of a float solver's solves in double).
 */
bool
DeviceTakesFastTransforms(const DeviceInfo & device, const std::vector<TrigAxis> & trig);

/** u <- A^-1 u on a device for a real operator that DeviceTakesFastTransforms accepts. */
template<typename Scalar>
class FastTransformDeviceSolver
{
public:
  /**
   * For `plan`, whose trig (and, with two axes left, remainder) PSCRSolver
   * set; `program` is the module's (BuildPSCRProgram); servesFloat as for
   * TridiagonalDeviceSolver.
   */
  FastTransformDeviceSolver(DeviceContext & context,
                            const DeviceInfo & device,
                            const Program & program,
                            const PSCRPlan<Scalar> & plan,
                            bool servesFloat);
  ~FastTransformDeviceSolver();

  /** Enqueues u <- A^-1 u on `queue` (the context's queue 0, which runs the FFTs), in place. */
  void
  Solve(const cl::CommandQueue & queue, const cl::Buffer & u);

  /**
   * Device memory beyond u: the transform buffer, tables and one axis left's
   * workspace (two axes left: their PSCR solver checks its own).
   */
  static std::uint64_t
  Bytes(const DeviceInfo & device, const PSCRPlan<Scalar> & plan);

private:
  using Complex = std::complex<Scalar>;
  /** The strides of u's layout, per axis. */
  using Strides = std::vector<long>;

  void
  Pack(const cl::CommandQueue & queue,
       std::size_t axis,
       TrigTransformKind kind,
       const cl::Buffer & u,
       const Strides & s);
  void
  Unpack(const cl::CommandQueue & queue,
         std::size_t axis,
         TrigTransformKind kind,
         const cl::Buffer & u,
         const Strides & s,
         double scale);
  /** The arguments and index space a pack or unpack kernel over `axis` shares. */
  struct Launch
  {
    cl_int n = 1;                 ///< the axis' points
    std::vector<cl_long> strides; ///< (sa, sb, sc): the axis', then the other axes' in order, in u's layout
    cl_long pitch = 2;            ///< reals of a line of the transform buffer
    cl_long nb = 1;               ///< the first other axis' size
    cl_int across = 0;            ///< 1 when the axis is not contiguous in u (see kernels/pscr_fast.cl)
    cl::NDRange global, local;
  };
  /** The Launch of a kernel with `points` work-items along `axis`, on u's layout `s`. */
  Launch
  LaunchOver(std::size_t axis, std::size_t points, const Strides & s) const;
  const FFTPlan<Scalar> &
  Plan(std::size_t axis) const;

  std::vector<std::size_t> m_Shape;
  std::vector<TrigAxis> m_Trig;
  std::size_t m_Count = 1;
  /** The axes left (at most two) and the transformed ones, each in order. */
  std::vector<std::size_t> m_Left, m_Transformed;
  bool m_SingularMode;
  double m_Shift;
  /** 1 / (prod_t m_t * prod over DST-I axes of 2 (n + 1)): the DCT pair here is normalised. */
  double m_Scale = 1;
  Strides m_Natural, m_LeftFirst;
  /** One FFT plan per (points, lines); Plan(axis) finds an axis' own. */
  std::map<std::pair<std::size_t, std::size_t>, std::unique_ptr<FFTPlan<Scalar>>> m_Plans;
  DeviceBuffer<Complex> m_Work;
  std::vector<DeviceBuffer<Scalar>> m_Twiddles; ///< per DCT axis: cos, sin of pi k / (2 n), k < n
  DeviceBuffer<double> m_Lambda;                ///< every axis transformed: the axes' eigenvalues and a 0
  std::vector<cl_int> m_LambdaOffset;
  DeviceBuffer<Scalar> m_Shifts; ///< axes left: c + the transformed axes' eigenvalues, per problem
  std::unique_ptr<TridiagonalDeviceSolver<Scalar>> m_Tridiagonal; ///< one axis left
  std::unique_ptr<PSCRDeviceSolver<Scalar>> m_Remainder;          ///< two axes left
  Kernel m_PackDST1, m_PackDCT2, m_PackDCT3, m_UnpackDCT2, m_UnpackStrided, m_Divide;
  std::size_t m_Group; ///< work-group size along dimension 0, at most every kernel's limit
};

extern template class FastTransformDeviceSolver<float>;
extern template class FastTransformDeviceSolver<double>;

} // namespace gpur

#endif
