package io.tablecast.server.postgresql;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A connection whose statements each wait 100 ms before they are sent: the server's pauses between
 * the statements of a transaction on a loaded machine, for tests of a database's idle limit.
 */
final class SlowConnection {
  static final long PAUSE_MILLIS = 100;

  /**
   * {@link #of} {@code c}, whose session has an {@code idle_in_transaction_session_timeout} of 50
   * ms first, as a role's or database's setting would give it: half the pause.
   */
  static Connection underIdleLimit(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("SET idle_in_transaction_session_timeout = '50ms'");
    }
    return of(c);
  }

  static Connection of(Connection c) {
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
              Object result = invoke(method, c, args);
              if (result instanceof Statement statement) {
                return Proxy.newProxyInstance(
                    Statement.class.getClassLoader(),
                    new Class<?>[] {Statement.class},
                    (p, m, a) -> {
                      if (m.getName().startsWith("execute")) {
                        Thread.sleep(PAUSE_MILLIS);
                      }
                      return invoke(m, statement, a);
                    });
              }
              return result;
            });
  }

  private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private SlowConnection() {}
}
