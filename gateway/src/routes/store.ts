import { z } from "zod";
import type { ServiceClients } from "../clients";
import { dataEnvelope, errorEnvelope, route, type RouteSpec } from "../http/api";
import { sendData } from "../http/envelope";
import { entitlementJson, entitlementSchema } from "./billing";

export const STORE_ENVIRONMENTS = ["Sandbox", "Production"] as const;

/** A signed JWS of the App Store: three base64url parts, a few kilobytes (the JSON body limit bounds it). */
const signedString = (what: string) => z.string().trim().min(1, "is required").describe(what);

const notificationBody = z.strictObject({
  signedPayload: signedString("The App Store Server Notification (version 2) as Apple sends it: a signed JWS"),
});
const confirmBody = z.strictObject({
  receipt: signedString("The signed transaction (JWS) StoreKit gave the app"),
  bundleId: z.string().trim().min(1, "is required").max(255).describe("The app's bundle id"),
  environment: z.enum(STORE_ENVIRONMENTS).describe("Where the purchase was made"),
  productId: z.string().trim().min(1, "must not be empty").max(255).optional().describe("The product bought (checked against the transaction)"),
});

const verificationFailed =
  "The signature, its certificate chain (to the configured App Store roots), the bundle id or the environment does not check " +
  "out (STORE_VERIFICATION_FAILED); nothing is stored";

const tag = "Store";

/** App Store purchases: the store's server notifications and the purchase confirmation of the app. */
export function storeRoutes(clients: ServiceClients): RouteSpec[] {
  return [
    route({
      method: "post",
      path: "/api/store/assn",
      tag,
      summary: "App Store Server Notifications v2: keeps the store subscription (active, in_grace, expired) in sync",
      description:
        "Not authenticated (the spec's one exception): the signed payload is the credential. Unlike the spec's original, the " +
        "payload is verified before anything is stored; each notification UUID is applied once (a redelivery answers duplicate " +
        "true). Configure this URL as the app's App Store Server Notifications URL (version 2).",
      auth: false,
      body: notificationBody,
      responses: {
        200: {
          description: "Received",
          schema: dataEnvelope(
            z.object({
              notificationUUID: z.string(),
              notificationType: z.string().describe("As Apple names it (DID_RENEW, EXPIRED, REFUND, …)"),
              status: z
                .enum(["active", "in_grace", "expired", ""])
                .describe("The store subscription's status after it; empty when the notification concerns no known subscription"),
              duplicate: z.boolean().describe("Received before: nothing new was applied"),
            }),
          ),
        },
        400: { description: `Invalid input (VALIDATION_ERROR), or: ${verificationFailed}`, schema: errorEnvelope },
      },
      async handler({ body, res }) {
        const reply = await clients.billing.handleStoreNotification({ signedPayload: body.signedPayload });
        sendData(
          res,
          200,
          { notificationUUID: reply.notificationUuid, notificationType: reply.notificationType, status: reply.status, duplicate: reply.duplicate },
          reply.duplicate ? "Notification already received" : "Notification applied",
        );
      },
    }),
    route({
      method: "post",
      path: "/api/store/confirm",
      tag,
      summary: "Confirm an App Store purchase: the signed transaction is verified and access unlocks at once",
      description:
        "An appAccountToken set at purchase links the transaction to the signed-in user; a transaction that belongs to another " +
        "user is refused. The spec's answer is {success, isPro}; `data.entitlement` is an addition.",
      auth: true,
      body: confirmBody,
      responses: {
        200: {
          description: "The caller's access after the purchase",
          schema: z.object({ success: z.literal(true), isPro: z.boolean(), data: z.object({ entitlement: entitlementSchema }) }),
        },
        400: { description: `Invalid input (VALIDATION_ERROR), or: ${verificationFailed}`, schema: errorEnvelope },
        403: {
          description: "The transaction's appAccountToken or original transaction belongs to another user (STORE_ACCOUNT_MISMATCH)",
          schema: errorEnvelope,
        },
      },
      async handler({ userId, body, res }) {
        const reply = await clients.billing.confirmStorePurchase({
          userId,
          receipt: body.receipt,
          bundleId: body.bundleId,
          environment: body.environment,
          productId: body.productId,
        });
        res.status(200).json({ success: true, isPro: reply.isPro, data: { entitlement: entitlementJson(reply.entitlement) } });
      },
    }),
  ];
}
