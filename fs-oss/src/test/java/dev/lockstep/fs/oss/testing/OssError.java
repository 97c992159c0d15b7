package dev.lockstep.fs.oss.testing;

/**
 * An OSS error answer: HTTP status, OSS error code and message, rendered as the OSS error XML body
 * ("Error responses" in the OSS API reference: {@code <Error><Code/><Message/><RequestId/><HostId/>
 * <EC/></Error>}). HEAD answers carry no body; they carry the same XML base64-encoded in the {@code
 * x-oss-err} response header, which the SDK reads.
 */
final class OssError extends Exception {

  private static final long serialVersionUID = 1L;

  final int status;
  final String code;
  final String ec;
  final String extraXml;

  OssError(int status, String code, String ec, String message) {
    this(status, code, ec, message, "");
  }

  OssError(int status, String code, String ec, String message, String extraXml) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
    this.ec = ec;
    this.extraXml = extraXml;
  }

  /** GetObject/HeadObject on a missing key: 404 {@code NoSuchKey}. */
  static OssError noSuchKey(String key) {
    return new OssError(
        404,
        "NoSuchKey",
        "0026-00000001",
        "The specified key does not exist.",
        OssXml.element("Key", key));
  }

  /** Any request on a missing bucket: 404 {@code NoSuchBucket}. */
  static OssError noSuchBucket(String bucket) {
    return new OssError(
        404,
        "NoSuchBucket",
        "0015-00000101",
        "The specified bucket does not exist.",
        OssXml.element("BucketName", bucket));
  }

  /** UploadPart/CompleteMultipartUpload/AbortMultipartUpload on an unknown upload id. */
  static OssError noSuchUpload(String uploadId) {
    return new OssError(
        404,
        "NoSuchUpload",
        "0042-00000002",
        "The specified upload does not exist. The upload ID may be invalid, or the upload may have"
            + " been aborted or completed.",
        OssXml.element("UploadId", uploadId));
  }

  /** {@code x-oss-forbid-overwrite: true} and the object exists: 409 {@code FileAlreadyExists}. */
  static OssError fileAlreadyExists(String key) {
    return new OssError(
        409,
        "FileAlreadyExists",
        "0026-00000002",
        "The object you specified already" + " exists and can not be overwritten.",
        OssXml.element("Key", key));
  }

  static OssError invalidArgument(String message) {
    return new OssError(400, "InvalidArgument", "0017-00000001", message);
  }

  String toXml(String requestId, String hostId) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error>\n"
        + "  "
        + OssXml.element("Code", code)
        + "\n"
        + "  "
        + OssXml.element("Message", getMessage())
        + "\n"
        + "  "
        + OssXml.element("RequestId", requestId)
        + "\n"
        + "  "
        + OssXml.element("HostId", hostId)
        + "\n"
        + (extraXml.isEmpty() ? "" : "  " + extraXml + "\n")
        + "  "
        + OssXml.element("EC", ec)
        + "\n"
        + "</Error>\n";
  }
}
