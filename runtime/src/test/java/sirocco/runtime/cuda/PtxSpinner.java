package sirocco.runtime.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.Devices;
import sirocco.runtime.Dim3;
import sirocco.runtime.ElementType;
import sirocco.runtime.MappedBuffer;
import sirocco.runtime.Stream;

/**
 * A hand-written PTX test fixture holding a stream until its flag in mapped memory is set; it gives
 * up after 20 s so that a regression fails a test instead of hanging the GPU.
 */
final class PtxSpinner {
  static final long GIVE_UP_NANOS = 20_000_000_000L;

  final MappedBuffer flag;
  final DeviceBuffer out;
  final Stream stream;

  PtxSpinner(Stream s) throws IOException {
    CudaDevice d = (CudaDevice) Devices.cuda(0);
    String ptx;
    try (InputStream in = PtxSpinner.class.getResourceAsStream("/ptx/spin_on_flag.ptx")) {
      ptx = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    CudaFunction f = d.loadPtx(ptx, "spin_on_flag");
    stream = s;
    flag = d.allocateMapped(ElementType.I32, 1);
    out = d.allocate(ElementType.I32, 1, s);
    d.launchFunction(f, Dim3.of(1), Dim3.of(1), 0, s, flag, out, GIVE_UP_NANOS);
  }

  /** Sets the flag and returns what the kernel wrote: 1 if it saw the flag, 0 if it gave up. */
  int finish() {
    flag.setIntVolatile(0, 1);
    int[] r = new int[1];
    Devices.cuda(0).download(out, 0, r, 0, 1, stream);
    out.close();
    flag.close();
    return r[0];
  }
}
