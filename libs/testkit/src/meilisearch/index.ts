export { startMeilisearchStandIn, type MeilisearchRequestRecord, type MeilisearchStandIn, type MeilisearchStandInOptions } from "./stand-in";
