package io.tablecast.cli;

import io.tablecast.server.auth.ConfigAuthenticator;
import io.tablecast.server.capture.CaptureFinding;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.capture.TriggerInstaller;
import io.tablecast.server.net.TlsConfig;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;

@Command(
    name = "check",
    mixinStandardHelpOptions = true,
    description = {
      "Check a configuration against its database without changing anything: every cached table, "
          + "the outbox and each table's capture, the privileges serving needs, the servers running on the outbox, "
          + "and what the access policies (auth) name that is not cached.",
      "Prints one line per finding (OK, INFO, WARN, ERROR). Exit code 0 when `serve` would start, 1 when an "
          + "ERROR would stop it."
    })
final class CheckCommand extends TriggerCommand {

  @Override
  int run(TriggerInstaller installer) throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    out.println("OK    database: " + installer.dialect() + " reached");
    List<CaptureFinding> findings = new ArrayList<>(installer.check(this::policyFindings));
    if (cfg.tls() != null) {
      findings.add(tlsFinding(cfg.tls().check()));
    }
    findings.forEach(out::println);
    long errors = findings.stream().filter(CaptureFinding::stopsServe).count();
    long warnings =
        findings.stream().filter(f -> f.severity() == CaptureFinding.Severity.WARN).count();
    out.println(
        errors == 0
            ? "serve would start (" + warnings + (warnings == 1 ? " warning)" : " warnings)")
            : errors
                + (errors == 1 ? " error stops" : " errors stop")
                + " serve; "
                + warnings
                + (warnings == 1 ? " warning" : " warnings"));
    out.flush();
    return errors == 0 ? 0 : 1;
  }

  /** The certificate the server would serve on its port, or why its start would fail. */
  private static CaptureFinding tlsFinding(TlsConfig.FilesCheck tls) {
    if (!tls.usable()) {
      return CaptureFinding.error("tls", tls.message());
    }
    return tls.expiring()
        ? CaptureFinding.warn("tls", tls.message() + ": renew the certificate")
        : CaptureFinding.ok("tls", tls.message());
  }

  /** What the access policies name that the cached tables do not have, as the server warns. */
  private List<CaptureFinding> policyFindings(List<TableSchema> cached) {
    if (!(cfg.authenticator() instanceof ConfigAuthenticator policies)) {
      return List.of();
    }
    return policies.policyWarnings(cached).stream()
        .map(w -> CaptureFinding.warn("auth", w))
        .toList();
  }
}
