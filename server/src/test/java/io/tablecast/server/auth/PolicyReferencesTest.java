package io.tablecast.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What the configured policies name that the cached tables do not have is warned of, naming the
 * policy and what was meant; policies that name only what is cached give no warning.
 */
class PolicyReferencesTest {
  private static final List<TableSchema> CACHED =
      List.of(
          table("public.products", "id", "name", "price", "region"),
          table("public.orders", "id", "status", "total"));

  @Test
  void aTableAColumnOrARowFilterColumnThatIsNotCachedIsNamedWithWhatWasMeant() {
    ConfigAuthenticator policies =
        new ConfigAuthenticator(
            List.of(
                entry(
                    "pricing",
                    new AccessPolicy(Set.of("public.prodcts", "public.orders"), null, null)),
                entry(
                    "dashboard",
                    new AccessPolicy(Set.of("public.orders"), null, Set.of("status", "totl"))),
                entry("eu", new AccessPolicy(null, RowFilter.parse("region = 'eu'"), null)),
                entry("all", AccessPolicy.ALLOW_ALL)),
            null,
            new AccessPolicy(Set.of("public.invoices"), null, null));
    assertThat(policies.policyWarnings(CACHED))
        .containsExactly(
            "auth.principals 'pricing' may read public.prodcts, which this server does not cache"
                + " (did you mean public.products?): its sessions are refused it (cached:"
                + " [public.orders, public.products])",
            "auth.principals 'dashboard' may see column 'totl', which none of the tables it may"
                + " read has (did you mean total?): it is never sent",
            "auth.principals 'eu': its row_filter reads column 'region', which public.orders does not"
                + " have: its sessions are refused it",
            "auth.jwt.default_policy may read public.invoices, which this server does not cache:"
                + " its sessions are refused it (cached: [public.orders, public.products])");
  }

  @Test
  void policiesThatNameOnlyWhatIsCachedGiveNoWarning() {
    ConfigAuthenticator policies =
        new ConfigAuthenticator(
            List.of(
                entry(
                    "a",
                    new AccessPolicy(
                        Set.of("public.products"),
                        RowFilter.parse("region = 'eu'"),
                        Set.of("price"))),
                entry("b", new AccessPolicy(null, null, Set.of("status", "name")))),
            null,
            AccessPolicy.ALLOW_ALL);
    assertThat(policies.policyWarnings(CACHED)).isEmpty();
  }

  private static ConfigAuthenticator.PrincipalEntry entry(String name, AccessPolicy policy) {
    return new ConfigAuthenticator.PrincipalEntry(name, null, policy);
  }

  private static TableSchema table(String qualified, String... columns) {
    return new TableSchema(
        TableId.parse(qualified, "public"),
        java.util.Arrays.stream(columns)
            .map(c -> new ColumnInfo(c, "text", ColumnKind.STRING))
            .toList(),
        List.of("id"));
  }
}
