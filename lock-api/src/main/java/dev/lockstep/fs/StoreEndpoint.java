package dev.lockstep.fs;

/**
 * Names the service behind a store's paths, so that what is learnt about one service is kept per
 * service: the commit protocol probes a store's atomic create once per endpoint before it trusts it
 * for lock-free commits ({@code commit.atomic-create-probe}, see lock-api's README), and caches the
 * verdict under this name.
 *
 * <p>Two paths with the same identity are served by one service with one behaviour (for S3: the
 * scheme, the endpoint and the bucket). A store that does not implement this is not probed.
 */
public interface StoreEndpoint {

  /**
   * The identity of the service and namespace that serve {@code path}, for example {@code
   * s3://warehouse at http://127.0.0.1:9000}. Never contains secrets.
   */
  String endpointIdentity(Path path);
}
