package io.tablecast.server.testing;

import io.nats.client.NKey;
import io.nats.client.support.JsonSerializable;
import io.nats.client.support.JwtUtils;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;

/**
 * NATS decentralized authentication made in the test, with jnats' own JWT utilities (no {@code
 * nsc}): an operator, its system account, an account with JetStream and a user of it whose {@code
 * .creds} file a client authenticates with. {@link #serverConfig()} puts a {@code nats-server} in
 * operator mode with a memory resolver preloaded with both accounts.
 */
public final class NatsOperator {

  /** An account with no limits, JetStream included. */
  private static final String ACCOUNT =
      "{\"type\":\"account\",\"version\":2,\"limits\":{\"subs\":-1,\"data\":-1,\"payload\":-1,"
          + "\"imports\":-1,\"exports\":-1,\"wildcards\":true,\"conn\":-1,\"leaf\":-1,"
          + "\"mem_storage\":-1,\"disk_storage\":-1,\"streams\":-1,\"consumer\":-1}}";

  private final String config;
  private final NKey account;
  private final String accountId;

  private NatsOperator(String config, NKey account, String accountId) {
    this.config = config;
    this.account = account;
    this.accountId = accountId;
  }

  /** A new operator with its system account and one account for the application. */
  public static NatsOperator create() throws IOException, GeneralSecurityException {
    NKey operator = NKey.createOperator(null);
    NKey system = NKey.createAccount(null);
    NKey account = NKey.createAccount(null);
    String operatorId = new String(operator.getPublicKey());
    String systemId = new String(system.getPublicKey());
    String accountId = new String(account.getPublicKey());
    long now = JwtUtils.currentTimeSeconds();
    String operatorJwt =
        JwtUtils.issueJWT(
            operator,
            operatorId,
            "op",
            null,
            now,
            operatorId,
            claim("{\"type\":\"operator\",\"version\":2}"));
    String systemJwt =
        JwtUtils.issueJWT(
            operator,
            systemId,
            "SYS",
            null,
            now,
            operatorId,
            claim("{\"type\":\"account\",\"version\":2}"));
    String accountJwt =
        JwtUtils.issueJWT(operator, accountId, "app", null, now, operatorId, claim(ACCOUNT));
    String config =
        "operator: "
            + operatorJwt
            + "\nsystem_account: "
            + systemId
            + "\nresolver: MEMORY\nresolver_preload: {\n  "
            + systemId
            + ": "
            + systemJwt
            + "\n  "
            + accountId
            + ": "
            + accountJwt
            + "\n}\n";
    return new NatsOperator(config, account, accountId);
  }

  private static JsonSerializable claim(String json) {
    return () -> json;
  }

  /** The lines that put a {@code nats-server} in operator mode with this operator's accounts. */
  public String serverConfig() {
    return config;
  }

  /**
   * Writes the {@code .creds} file of a new user of the account (a user JWT signed by the account,
   * and the user's seed), as {@code nsc generate creds} does.
   */
  public Path userCredentials(Path file, String name) throws IOException, GeneralSecurityException {
    NKey user = NKey.createUser(null);
    String jwt = JwtUtils.issueUserJWT(account, accountId, new String(user.getPublicKey()), name);
    return Files.writeString(
        file,
        String.format(JwtUtils.NATS_USER_JWT_FORMAT, jwt, new String(user.getSeed())),
        StandardCharsets.US_ASCII);
  }
}
