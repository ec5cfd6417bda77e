package io.tablecast.server.testing;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Awaitility's defaults for every server test (registered for all of them through {@code
 * META-INF/services} and {@code junit-platform.properties}): a condition is first checked at once
 * and then every 10 ms, instead of after 100 ms and then every 100 ms. A wait still ends when its
 * condition holds or at its deadline; it only notices the condition sooner. A test that sets its
 * own poll interval or delay keeps it.
 */
public final class AwaitilityDefaults implements BeforeAllCallback {

  /** How often a condition is checked. */
  public static final Duration POLL_INTERVAL = Duration.ofMillis(10);

  @Override
  public void beforeAll(ExtensionContext context) {
    Awaitility.setDefaultPollInterval(POLL_INTERVAL);
    Awaitility.setDefaultPollDelay(Duration.ZERO);
  }
}
