package dev.agentswarm.app.serve;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ApiKeysTest {

    @Test
    void onlyABearerTokenEqualToAKeyIsAccepted() {
        ApiKeys keys = ApiKeys.of(List.of("alpha-key", "beta-key"));
        assertTrue(keys.required());
        assertTrue(keys.accepts("Bearer alpha-key"));
        assertTrue(keys.accepts("bearer beta-key"));
        assertTrue(keys.accepts("Bearer  beta-key "), "spaces around the token are not part of it");
        for (String wrong : new String[] {null, "", "Bearer", "Bearer ", "Bearer alpha", "Bearer alpha-key2", "Bearer ALPHA-KEY",
                "Basic alpha-key", "alpha-key", "Bearer alpha-keybeta-key"}) {
            assertFalse(keys.accepts(wrong), String.valueOf(wrong));
        }
        assertTrue(ApiKeys.none().accepts(null), "no key: everyone is let in (loopback only)");
        assertFalse(ApiKeys.none().required());
        assertThrows(IllegalArgumentException.class, () -> ApiKeys.of(List.of("")));
        assertThrows(IllegalArgumentException.class, () -> ApiKeys.of(List.of("two words")));
    }
}
