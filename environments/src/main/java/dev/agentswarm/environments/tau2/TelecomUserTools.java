package dev.agentswarm.environments.tau2;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentswarm.core.json.Json;
import dev.agentswarm.core.json.PythonText;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * τ²-bench's telecom user side: the customer's phone (SIM, airplane mode, mobile data, roaming, network
 * mode, APN, Wi-Fi, Wi-Fi calling, VPN, app permissions) and surroundings (abroad, signal per
 * technology, the line's state as the carrier sees it, a payment request), the user's 30 tools with
 * τ²'s texts and effects, its setup helpers and assertions, and the phone's simulation: network search,
 * whether mobile data works, the speed test, MMS.
 */
final class TelecomUserTools extends Toolkit {

    private static final String SB = "\nStatus Bar: ";
    private static final List<String> PERMISSIONS = List.of("sms", "storage", "phone", "network");
    private static final List<String> MODES = List.of("4g_5g_preferred", "4g_only", "3g_only", "2g_only");
    /** τ²'s connect_vpn hands out one shared default whose performance break_vpn spoils: per environment here. */
    private String defaultVpnPerformance = "excellent";

    TelecomUserTools(ObjectNode db) {
        super("TelecomUserTools", withDefaults(db));
        tool("check_status_bar", Kind.READ, "Shows what icons are currently visible in your phone's status bar.");
        tool("check_network_status", Kind.READ, "Checks your phone's connection status to cellular networks and Wi-Fi.");
        tool("check_network_mode_preference", Kind.READ, "Checks your phone's network mode preference.");
        tool("set_network_mode_preference", Kind.WRITE, "Changes the type of cellular network your phone prefers to connect to.",
                "mode: The network mode to set: 4g_5g_preferred, 4g_only, 3g_only or 2g_only.");
        tool("run_speed_test", Kind.READ, "Measures your current internet connection speed.");
        tool("toggle_airplane_mode", Kind.WRITE, "Toggles Airplane Mode ON or OFF.");
        tool("check_sim_status", Kind.READ, "Checks if your SIM card is working correctly and displays its current status.");
        tool("reseat_sim_card", Kind.WRITE, "Simulates removing and reinserting your SIM card.");
        tool("toggle_data", Kind.WRITE, "Toggles your phone's mobile data connection ON or OFF.");
        tool("toggle_roaming", Kind.WRITE, "Toggles Data Roaming ON or OFF.");
        tool("check_data_restriction_status", Kind.READ, "Checks if your phone has any data-limiting features active.");
        tool("toggle_data_saver_mode", Kind.WRITE, "Toggles Data Saver mode ON or OFF.");
        tool("check_apn_settings", Kind.READ, "Checks the technical APN settings your phone uses to connect to your carrier's mobile data network.");
        tool("set_apn_settings", Kind.WRITE, "Sets the APN settings for the phone.", "apn_settings: The APN settings to set.");
        tool("reset_apn_settings", Kind.WRITE, "Resets your APN settings to the default settings.");
        tool("check_wifi_status", Kind.READ, "Checks your Wi-Fi connection status.");
        tool("toggle_wifi", Kind.WRITE, "Toggles your phone's Wi-Fi radio ON or OFF.");
        tool("check_wifi_calling_status", Kind.READ, "Checks if Wi-Fi Calling is enabled on your device.");
        tool("toggle_wifi_calling", Kind.WRITE, "Toggles Wi-Fi Calling ON or OFF.");
        tool("check_vpn_status", Kind.READ, "Checks if you're using a VPN (Virtual Private Network) connection.");
        tool("connect_vpn", Kind.WRITE, "Connects to your VPN (Virtual Private Network).");
        tool("disconnect_vpn", Kind.WRITE, "Disconnects any active VPN (Virtual Private Network) connection.");
        tool("check_installed_apps", Kind.READ, "Returns the name of all installed apps on the phone.");
        tool("check_app_status", Kind.READ, "Checks detailed information about a specific app.", "app_name: The name of the app to check.");
        tool("check_app_permissions", Kind.READ, "Checks what permissions a specific app currently has.", "app_name: The name of the app to check.");
        tool("grant_app_permission", Kind.WRITE, "Gives a specific permission to an app (like access to storage, camera, or location).",
                "app_name: The name of the app to grant the permission to.", "permission: The permission to grant.");
        tool("can_send_mms", Kind.READ, "Checks if the messaging app can send MMS messages.");
        tool("reboot_device", Kind.WRITE, "Restarts your phone completely.");
        tool("check_payment_request", Kind.READ, "Checks if the agent has sent you a payment request.");
        tool("make_payment", Kind.WRITE, "Makes a payment for the bill that the agent has sent you.");
        for (String h : List.of("turn_airplane_mode_on", "turn_airplane_mode_off", "unseat_sim_card", "turn_data_on", "turn_data_off",
                "turn_roaming_on", "turn_roaming_off", "turn_data_saver_mode_on", "turn_data_saver_mode_off", "break_apn_settings",
                "break_apn_mms_setting", "break_vpn", "simulate_network_search", "assert_mobile_data_usage_exceeded", "assert_internet_not_excellent")) {
            helper(h);
        }
        helper("set_user_info", "name", "phone_number");
        helper("set_user_location", "abroad");
        helper("lock_sim_card", "mode");
        helper("set_wifi_calling", "enabled", "mms_over_wifi?");
        helper("remove_app_permission", "app_name", "permission");
        helper("assert_airplane_mode_status", "expected_status");
        helper("assert_service_status", "expected_status");
        helper("assert_mobile_data_status", "expected_status");
        helper("assert_mobile_roaming_status", "expected_status");
        helper("assert_mobile_data_saver_mode_status", "expected_status");
        helper("assert_internet_speed", "expected_speed", "expected_desc?");
        helper("assert_can_send_mms", "expected_status");
    }

    /** The model's defaults for what user_db.toml leaves out: the surroundings, the Wi-Fi, APN and VPN fields. */
    private static ObjectNode withDefaults(ObjectNode db) {
        ObjectNode d = db.withObject("/device");
        putIfMissing(d, "wifi_ssid", null);
        putIfMissing(d, "vpn_details", null);
        ObjectNode apn = d.withObject("/active_apn_settings");
        if (!apn.has("reset_at_reboot")) apn.put("reset_at_reboot", false);
        putIfMissing(apn, "mms_proxy", null);
        putIfMissing(apn, "mms_port", null);
        ObjectNode s = db.withObject("/surroundings");
        putIfMissing(s, "name", null);
        putIfMissing(s, "phone_number", null);
        if (!s.has("is_abroad")) s.put("is_abroad", false);
        if (!s.has("roaming_allowed")) s.put("roaming_allowed", false);
        if (!s.has("signal_strength")) {
            ObjectNode sig = s.putObject("signal_strength");
            sig.put("2G", "poor").put("3G", "fair").put("4G", "good").put("5G", "excellent");
        }
        if (!s.has("mobile_data_usage_exceeded")) s.put("mobile_data_usage_exceeded", false);
        if (!s.has("line_active")) s.put("line_active", true);
        putIfMissing(s, "payment_request", null);
        return db;
    }

    private static void putIfMissing(ObjectNode o, String field, String value) {
        if (!o.has(field)) o.set(field, value == null ? o.nullNode() : o.textNode(value));
    }

    private ObjectNode device() {
        return (ObjectNode) db.get("device");
    }

    ObjectNode surroundings() {
        return (ObjectNode) db.get("surroundings");
    }

    private boolean flag(String f) {
        return device().path(f).asBoolean(false);
    }

    private String text(String f) {
        return device().path(f).asText();
    }

    // ---- the phone's simulation ------------------------------------------------------------------

    String simStatus() {
        return flag("sim_card_missing") ? "missing" : text("sim_card_status");
    }

    void networkSearch() {
        ObjectNode d = device();
        String status;
        String tech;
        String signal;
        if (simStatus().equals("active")) {
            status = "connected";
            JsonNode strengths = surroundings().path("signal_strength");
            switch (text("network_mode_preference")) {
                case "4g_only" -> tech = "4G";
                case "3g_only" -> tech = "3G";
                case "2g_only" -> tech = "2G";
                default -> tech = strengths.path("5G").asText("none").equals("none") ? "4G" : "5G";
            }
            signal = strengths.path(tech).asText("none");
        } else {
            status = "no_service";
            tech = "none";
            signal = "none";
        }
        if (flag("airplane_mode") || "broken".equals(d.path("active_apn_settings").path("apn_name").asText())
                || !surroundings().path("line_active").asBoolean(true)) {
            status = "no_service";
            tech = "none";
            signal = "none";
        }
        d.put("network_connection_status", status);
        d.put("network_technology_connected", tech);
        d.put("network_signal_strength", signal);
    }

    boolean mobileDataWorking() {
        if (flag("airplane_mode") || text("network_signal_strength").equals("none")) return false;
        if (text("network_connection_status").equals("no_service")) return false;
        ObjectNode s = surroundings();
        if (s.path("is_abroad").asBoolean() && (!flag("roaming_enabled") || !s.path("roaming_allowed").asBoolean())) return false;
        if (!flag("data_enabled")) return false;
        return !s.path("mobile_data_usage_exceeded").asBoolean();
    }

    /** (speed in Mbps or null, description). */
    Object[] speedTest() {
        if (!mobileDataWorking()) return new Object[] {null, "No Connection"};
        double f = 1.0;
        JsonNode vpn = device().path("vpn_details");
        if (flag("vpn_connected") && vpn.isObject() && "poor".equals(vpn.path("server_performance").asText())) f = 0.1;
        if (flag("data_saver_mode")) f *= 0.2;
        double[] range = switch (text("network_technology_connected")) {
            case "2G" -> new double[] {0.1, 0.4};
            case "3G" -> new double[] {1, 5};
            case "4G" -> new double[] {10, 100};
            case "5G" -> new double[] {50, 500};
            default -> new double[] {0, 0};
        };
        double signal = switch (text("network_signal_strength")) {
            case "poor" -> 0.2;
            case "fair" -> 0.5;
            case "good" -> 0.8;
            case "excellent" -> 1.0;
            default -> 0.0;
        };
        double speed = RetailTools.round2((range[0] + range[1]) / 2 * signal * f);
        String desc = speed < 1 ? "Very Poor" : speed < 5 ? "Poor" : speed < 25 ? "Fair" : speed < 100 ? "Good" : "Excellent";
        return new Object[] {speed, desc};
    }

    boolean canSendMms() {
        if (!mobileDataWorking()) return false;
        if (text("network_technology_connected").equals("2G")) return false;
        if (flag("wifi_calling_enabled") && flag("wifi_calling_mms_over_wifi")) return false;
        if (device().path("active_apn_settings").path("mmsc_url").isNull() || device().path("active_apn_settings").path("mmsc_url").isMissingNode()) {
            return false;
        }
        JsonNode p = device().path("app_statuses").path("messaging").path("permissions");
        return !p.isMissingNode() && p.path("storage").asBoolean() && p.path("sms").asBoolean();
    }

    String statusBar() {
        List<String> parts = new ArrayList<>();
        if (flag("airplane_mode")) {
            parts.add("\u2708\ufe0f Airplane Mode");
        } else {
            parts.add(switch (text("network_signal_strength")) {
                case "poor" -> "\uD83D\uDCF6\u00b9 Poor";
                case "fair" -> "\uD83D\uDCF6\u00b2 Fair";
                case "good" -> "\uD83D\uDCF6\u00b3 Good";
                case "excellent" -> "\uD83D\uDCF6\u2074 Excellent";
                default -> "\uD83D\uDCF5 No Signal";
            });
            String tech = text("network_technology_connected");
            if (!tech.equals("none")) parts.add(tech);
            if (flag("data_enabled") && !tech.equals("none")) {
                parts.add("\uD83D\uDCF1 Data Enabled");
                if (flag("data_saver_mode")) parts.add("\uD83D\uDD3D Data Saver");
            } else {
                parts.add("\uD83D\uDCF5 Data Disabled");
            }
        }
        if (flag("wifi_enabled") && flag("wifi_connected")) {
            parts.add(device().path("wifi_ssid").isTextual() ? "\uD83D\uDCE1 Connected to " + text("wifi_ssid") : "\uD83D\uDCE1 Enabled");
        }
        if (flag("vpn_connected")) parts.add("\uD83D\uDD12 VPN Connected");
        parts.add("\uD83D\uDD0B " + device().path("battery_level").asInt() + "%");
        return String.join(" | ", parts);
    }

    private String withBar(String text) {
        return text + SB + statusBar();
    }

    private static String onOff(boolean b) {
        return b ? "ON" : "OFF";
    }

    private void disconnectWifi() {
        ObjectNode d = device();
        d.put("wifi_connected", false);
        d.putNull("wifi_ssid");
        d.put("wifi_signal_strength", "none");
    }

    private ObjectNode defaultApn() {
        ObjectNode apn = Json.MAPPER.createObjectNode();
        apn.put("apn_name", "internet");
        apn.put("reset_at_reboot", false);
        apn.put("mms_apn", "mms");
        apn.put("mmsc_url", "http://mms.carrier.com/mms/wapenc");
        apn.putNull("mms_proxy");
        apn.putNull("mms_port");
        return apn;
    }

    // ---- the tools ---------------------------------------------------------------------------------

    @Override
    Object run(String name, Args a) {
        ObjectNode d = device();
        return switch (name) {
            case "check_status_bar" -> "Status Bar: " + statusBar();
            case "check_network_status" -> networkStatus();
            case "check_network_mode_preference" -> "Network Mode Preference: " + text("network_mode_preference");
            case "set_network_mode_preference" -> {
                String mode = a.text("mode");
                if (mode == null || !MODES.contains(mode)) {
                    yield withBar("Failed to set network mode: '" + a.get("mode").asText() + "' is not a valid option. Please use one of: "
                            + String.join(", ", MODES));
                }
                d.put("network_mode_preference", mode);
                networkSearch();
                yield withBar("Preferred Network Mode set to: " + mode);
            }
            case "run_speed_test" -> {
                Object[] r = speedTest();
                if (r[0] == null) yield "Speed test failed: No Connection.";
                String desc = (String) r[1];
                String advice = switch (desc) {
                    case "Very Poor" -> "Connection is very slow. Basic web browsing might be difficult.";
                    case "Poor" -> "Connection is slow. Web browsing may be sluggish, streaming difficult.";
                    case "Fair" -> "Connection is okay for web browsing and some standard definition streaming.";
                    case "Good" -> "Connection is good for most activities, including HD streaming.";
                    default -> "Connection is very fast.";
                };
                yield "Speed Test Result: " + String.format(Locale.ROOT, "%.2f", (Double) r[0]) + " Mbps (" + desc + "). " + advice;
            }
            case "toggle_airplane_mode" -> withBar("Airplane Mode is now " + onOff(toggleAirplane()) + ".");
            case "check_sim_status" -> switch (simStatus()) {
                case "active" -> "Your SIM card is active and working.";
                case "missing" -> "No SIM card detected in the phone.";
                case "locked_pin" -> "The SIM card is locked with a PIN code.";
                default -> "The SIM card is locked with a PUK code.";
            };
            case "reseat_sim_card" -> {
                d.put("sim_card_missing", false);
                networkSearch();
                yield withBar("SIM card re-seated successfully.");
            }
            case "toggle_data" -> {
                d.put("data_enabled", !flag("data_enabled"));
                networkSearch();
                yield withBar("Mobile Data is now " + onOff(flag("data_enabled")) + ".");
            }
            case "toggle_roaming" -> {
                d.put("roaming_enabled", !flag("roaming_enabled"));
                networkSearch();
                yield withBar("Data Roaming is now " + onOff(flag("roaming_enabled")) + ".");
            }
            case "check_data_restriction_status" -> flag("data_saver_mode") ? "Data Saver mode is ON (limits data usage)." : "Data Saver mode is OFF.";
            case "toggle_data_saver_mode" -> {
                d.put("data_saver_mode", !flag("data_saver_mode"));
                yield withBar("Data Saver Mode is now " + onOff(flag("data_saver_mode")) + ".");
            }
            case "check_apn_settings" -> {
                JsonNode apn = d.path("active_apn_settings");
                yield "Current APN Name: " + apn.path("apn_name").asText() + "\nMMSC URL (for picture messages): "
                        + (apn.path("mmsc_url").isTextual() ? apn.path("mmsc_url").asText() : "Not Set")
                        + "\n(These are technical settings, usually best left unchanged.)";
            }
            case "set_apn_settings" -> {
                JsonNode given = a.get("apn_settings");
                if (!given.isObject() || !given.path("apn_name").isTextual()) throw new Tau2Error("1 validation error for APNSettings\napn_name\n  Field required");
                ObjectNode apn = defaultApn();
                given.fields().forEachRemaining(e -> apn.set(e.getKey(), e.getValue()));
                d.set("active_apn_settings", apn);
                networkSearch();
                yield withBar("APN settings set to: " + apn.path("apn_name").asText());
            }
            case "reset_apn_settings" -> {
                d.withObject("/active_apn_settings").put("reset_at_reboot", true);
                networkSearch();
                yield withBar("APN settings will reset at reboot.");
            }
            case "check_wifi_status" -> !flag("wifi_enabled") ? "Wi-Fi is turned OFF."
                    : flag("wifi_connected") ? "Wi-Fi is ON and connected to '" + text("wifi_ssid") + "'. Signal strength: " + text("wifi_signal_strength") + "."
                    : "Wi-Fi is ON but not connected to any network.";
            case "toggle_wifi" -> {
                if (flag("airplane_mode")) yield withBar("Cannot change Wi-Fi settings while Airplane Mode is ON.");
                d.put("wifi_enabled", !flag("wifi_enabled"));
                if (!flag("wifi_enabled")) disconnectWifi();
                yield withBar("Wi-Fi is now " + onOff(flag("wifi_enabled")) + ".");
            }
            case "check_wifi_calling_status" -> "Wi-Fi Calling is currently turned " + onOff(flag("wifi_calling_enabled")) + ".";
            case "toggle_wifi_calling" -> {
                d.put("wifi_calling_enabled", !flag("wifi_calling_enabled"));
                yield withBar("Wi-Fi Calling is now " + onOff(flag("wifi_calling_enabled")) + ".");
            }
            case "check_vpn_status" -> {
                JsonNode v = d.path("vpn_details");
                if (flag("vpn_connected") && v.isObject()) {
                    yield "VPN is ON and connected. Details: {'server_address': '" + v.path("server_address").asText() + "', 'protocol': '"
                            + v.path("protocol").asText() + "', 'server_performance': <PerformanceLevel." + v.path("server_performance").asText()
                            .toUpperCase(Locale.ROOT) + ": '" + v.path("server_performance").asText() + "'>}";
                }
                if (flag("vpn_connected")) yield "VPN is ON and connected (no specific details available).";
                if (flag("vpn_enabled_setting")) yield "VPN is turned ON in settings, but currently not connected.";
                yield "VPN is turned OFF.";
            }
            case "connect_vpn" -> {
                if (flag("vpn_connected")) yield "VPN already connected.";
                connectVpn();
                yield withBar("VPN connected successfully.");
            }
            case "disconnect_vpn" -> {
                boolean was = flag("vpn_connected");
                d.put("vpn_connected", false);
                d.putNull("vpn_details");
                yield withBar(was ? "VPN disconnected successfully." : "No active VPN connection to disconnect.");
            }
            case "check_installed_apps" -> {
                List<String> apps = new ArrayList<>();
                d.path("app_statuses").fieldNames().forEachRemaining(apps::add);
                yield "The following apps are installed on the phone: " + String.join(", ", apps);
            }
            case "check_app_status" -> appStatus(a.text("app_name"));
            case "check_app_permissions" -> {
                String app = a.text("app_name");
                JsonNode p = app == null ? null : d.path("app_statuses").path(app).path("permissions");
                if (p == null || p.isMissingNode()) yield "App '" + app + "' not found on this phone.";
                List<String> granted = granted(p);
                yield granted.isEmpty() ? "App '" + app + "' currently has no permissions granted."
                        : "App '" + app + "' has permission for: " + String.join(", ", granted) + ".";
            }
            case "grant_app_permission" -> {
                String app = a.text("app_name");
                String permission = a.get("permission").asText().toLowerCase(Locale.ROOT);
                JsonNode p = app == null ? null : d.path("app_statuses").path(app).path("permissions");
                if (p == null || p.isMissingNode()) yield withBar("Error. App '" + app + "' not found. Cannot grant permission.");
                if (!PERMISSIONS.contains(permission)) {
                    yield withBar("Error. Permission '" + permission + "' not tracked for app '" + app + "', available permissions: "
                            + "['sms', 'storage', 'phone', 'network']");
                }
                ((ObjectNode) p).put(permission, true);
                yield withBar("Success. Permission '" + permission + "' granted to app '" + app + "'.");
            }
            case "can_send_mms" -> canSendMms() ? "Your messaging app can send MMS messages." : "Your messaging app cannot send MMS messages.";
            case "reboot_device" -> {
                List<String> lines = new ArrayList<>();
                if (d.path("active_apn_settings").path("reset_at_reboot").asBoolean()) {
                    lines.add("Resetting APN settings...");
                    d.set("active_apn_settings", defaultApn());
                }
                lines.add("Restarting network services...");
                d.put("network_connection_status", "searching");
                networkSearch();
                yield withBar(String.join("\n", lines));
            }
            case "check_payment_request" -> {
                JsonNode r = surroundings().path("payment_request");
                if (!r.isObject()) yield "No payment request has been made.";
                yield "You have a payment request for bill " + r.path("bill_id").asText() + " of "
                        + PythonText.floatRepr(r.path("amount_due").asDouble()) + " USD.";
            }
            case "make_payment" -> {
                JsonNode r = surroundings().path("payment_request");
                if (!r.isObject()) yield "You do not have a payment request.";
                ((ObjectNode) r).put("paid", true);
                yield "Payment of " + PythonText.floatRepr(r.path("amount_due").asDouble()) + " USD has been made for bill " + r.path("bill_id").asText() + ".";
            }
            // ---- setup helpers
            case "set_user_info" -> {
                surroundings().set("name", a.get("name"));
                surroundings().set("phone_number", a.get("phone_number"));
                yield "User info set";
            }
            case "set_user_location" -> {
                surroundings().put("is_abroad", a.get("abroad").asBoolean());
                yield "User location set";
            }
            case "turn_airplane_mode_on" -> {
                if (!flag("airplane_mode")) toggleAirplane();
                yield "Airplane mode on";
            }
            case "turn_airplane_mode_off" -> {
                if (flag("airplane_mode")) toggleAirplane();
                yield "Airplane mode off";
            }
            case "unseat_sim_card" -> {
                d.put("sim_card_missing", true);
                networkSearch();
                yield "SIM card unseated";
            }
            case "lock_sim_card" -> {
                d.put("sim_card_status", "puk".equals(a.text("mode")) ? "locked_puk" : "locked_pin");
                networkSearch();
                yield "SIM card locked";
            }
            case "turn_data_on" -> set(d, "data_enabled", true);
            case "turn_data_off" -> set(d, "data_enabled", false);
            case "turn_roaming_on" -> set(d, "roaming_enabled", true);
            case "turn_roaming_off" -> set(d, "roaming_enabled", false);
            case "turn_data_saver_mode_on" -> set(d, "data_saver_mode", true);
            case "turn_data_saver_mode_off" -> set(d, "data_saver_mode", false);
            case "break_apn_settings" -> {
                d.withObject("/active_apn_settings").put("apn_name", "broken");
                networkSearch();
                yield "APN settings broken";
            }
            case "break_apn_mms_setting" -> {
                d.withObject("/active_apn_settings").putNull("mmsc_url");
                yield "APN MMS setting broken";
            }
            case "set_wifi_calling" -> {
                d.put("wifi_calling_enabled", a.get("enabled").asBoolean());
                if (a.has("mms_over_wifi") && !a.get("mms_over_wifi").isNull()) d.put("wifi_calling_mms_over_wifi", a.get("mms_over_wifi").asBoolean());
                yield "Wi-Fi calling set";
            }
            case "break_vpn" -> {
                connectVpn();
                defaultVpnPerformance = "poor";
                d.withObject("/vpn_details").put("server_performance", "poor");
                yield "VPN broken";
            }
            case "remove_app_permission" -> {
                JsonNode p = d.path("app_statuses").path(a.text("app_name")).path("permissions");
                if (!p.isObject()) throw new Tau2Error("App " + a.text("app_name") + " not found");
                ((ObjectNode) p).put(a.get("permission").asText().toLowerCase(Locale.ROOT), false);
                yield "Permission removed";
            }
            case "simulate_network_search" -> {
                networkSearch();
                yield "Network search simulated";
            }
            // ---- assertions
            case "assert_airplane_mode_status" -> flag("airplane_mode") == a.get("expected_status").asBoolean();
            case "assert_service_status" -> text("network_connection_status").equals(a.text("expected_status"));
            case "assert_mobile_data_status" -> mobileDataWorking() == a.get("expected_status").asBoolean();
            case "assert_mobile_roaming_status" -> flag("roaming_enabled") == a.get("expected_status").asBoolean();
            case "assert_mobile_data_saver_mode_status" -> flag("data_saver_mode") == a.get("expected_status").asBoolean();
            case "assert_internet_speed" -> {
                Object[] r = speedTest();
                double speed = r[0] == null ? 0.0 : (Double) r[0];
                boolean fast = speed >= a.get("expected_speed").asDouble();
                yield fast && (!a.has("expected_desc") || a.get("expected_desc").isNull()
                        || ((String) r[1]).equalsIgnoreCase(a.get("expected_desc").asText()));
            }
            case "assert_internet_not_excellent" -> !"Excellent".equals(speedTest()[1]);
            case "assert_can_send_mms" -> canSendMms() == a.get("expected_status").asBoolean();
            case "assert_mobile_data_usage_exceeded" -> surroundings().path("mobile_data_usage_exceeded").asBoolean();
            default -> throw new Tau2Error("Tool '" + name + "' not found.");
        };
    }

    private static String set(ObjectNode d, String field, boolean value) {
        d.put(field, value);
        return field + " set to " + value;
    }

    private boolean toggleAirplane() {
        ObjectNode d = device();
        boolean on = !flag("airplane_mode");
        d.put("airplane_mode", on);
        if (!on) {
            d.put("network_connection_status", "searching");
            if (flag("wifi_enabled")) disconnectWifi();
        } else {
            disconnectWifi();
            if (flag("vpn_connected")) {
                d.put("vpn_connected", false);
                d.putNull("vpn_details");
            }
        }
        networkSearch();
        return on;
    }

    private void connectVpn() {
        ObjectNode d = device();
        d.put("vpn_connected", true);
        ObjectNode v = d.putObject("vpn_details");
        v.put("server_address", "192.168.1.1");
        v.put("protocol", "OpenVPN");
        v.put("server_performance", defaultVpnPerformance);
    }

    private String networkStatus() {
        List<String> lines = new ArrayList<>();
        lines.add("Airplane Mode: " + onOff(flag("airplane_mode")));
        lines.add("SIM Card Status: " + simStatus());
        lines.add("Cellular Connection: " + text("network_connection_status"));
        lines.add("Cellular Signal: " + text("network_signal_strength"));
        lines.add("Cellular Network Type: " + text("network_technology_connected"));
        lines.add("Mobile Data Enabled: " + (flag("data_enabled") ? "Yes" : "No"));
        lines.add("Data Roaming Enabled: " + (flag("roaming_enabled") ? "Yes" : "No"));
        lines.add("Wi-Fi Radio: " + onOff(flag("wifi_enabled")));
        lines.add("Wi-Fi Connected: " + (flag("wifi_connected") ? "Yes" : "No"));
        if (flag("wifi_connected")) lines.add("Connected Wi-Fi Network: " + text("wifi_ssid"));
        return String.join("\n", lines);
    }

    private String appStatus(String app) {
        JsonNode p = app == null ? null : device().path("app_statuses").path(app).path("permissions");
        if (p == null || p.isMissingNode()) return "App '" + app + "' not found on this phone.";
        List<String> granted = granted(p);
        StringBuilder sb = new StringBuilder("Status for App: " + app);
        if (granted.isEmpty()) return sb.append("\n - Permissions: None granted.").toString();
        sb.append("\n - Permissions Granted:");
        for (String g : granted) sb.append("\n   - ").append(g);
        return sb.toString();
    }

    private static List<String> granted(JsonNode permissions) {
        List<String> out = new ArrayList<>();
        for (String p : PERMISSIONS) if (permissions.path(p).asBoolean(false)) out.add(p);
        return out;
    }
}
