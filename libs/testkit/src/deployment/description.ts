/**
 * The deployment description: what docker-compose.yml and k8s/base need about each app beyond the service
 * catalogue (libs/platform/src/catalogue.ts), keyed by the catalogue's names. Pure data, read by the generator
 * (./index.ts, `npm run deploy:generate`). A service without an entry here deploys with the defaults: it calls no
 * other service, gets only the common settings and the usual resources.
 */

/** A plain setting: a compose environment value or a ConfigMap entry. */
export interface Setting {
  name: string;
  value: string;
  /** Written above the setting (several lines: `\n`). */
  comment?: string;
}

/** A key of the app's Secret (`<name>-secrets`), given to its containers as the variable of the same name. */
export interface SecretKey {
  name: string;
  /** The container starts without it (a feature that stays off, or a default such as the pod's IAM role). */
  optional?: boolean;
  comment?: string;
}

export interface Resources {
  requests: { cpu: string; memory: string };
  limits: { cpu: string; memory: string };
  comment?: string;
}

/** An emptyDir beside /tmp (the root filesystem is read-only). */
export interface ScratchVolume {
  name: string;
  mountPath: string;
  sizeLimit: string;
  comment?: string;
}

/** A gRPC call this service makes: the callee (a catalogue name, or `gateway` for its IdentityService) and why. */
export interface ServiceCall {
  service: string;
  /** Written beside both ends' NetworkPolicy rules, e.g. "an import's course is checked". */
  why: string;
}

/**
 * A way out of the namespace an app needs beyond DNS, PostgreSQL, RabbitMQ and the trace collector (which every app
 * has): the NetworkPolicy k8s/base/network/egress-<way>.yaml selects exactly the apps that name it.
 */
export type EgressWay = "object-storage" | "meilisearch" | "openai" | "stripe" | "google" | "smtp" | "web-downloads";

export interface WorkerDeployment {
  /** Its ways out of the namespace (the worker's own: it shares its service's settings, not its NetworkPolicies). */
  egress?: readonly EgressWay[];
  /** Written above the compose service. */
  composeComment?: string;
  /** Written above terminationGracePeriodSeconds: what SIGTERM does to a running job. */
  terminationComment?: string;
  secrets?: readonly SecretKey[];
  resources?: Resources;
  /** The /tmp emptyDir's size (64Mi when unset). */
  tmp?: { sizeLimit: string; comment?: string };
  volumes?: readonly ScratchVolume[];
}

export interface AppDeployment {
  /** Its ways out of the namespace beyond those every app has. */
  egress?: readonly EgressWay[];
  /** Every service this one calls over gRPC: its address setting, and a NetworkPolicy rule at both ends. */
  calls?: readonly ServiceCall[];
  /** Written above the call addresses in compose and in the ConfigMap. */
  callsComment?: string;
  /** Written above the internal HTTP port settings (the catalogue's `http`). */
  httpComment?: string;
  compose?: {
    environment?: readonly Setting[];
    /** `volume:path` mounts, shared with the app's workers. */
    volumes?: readonly string[];
    /** Compose volumes the app owns (listed under the file's `volumes:`), with why. */
    ownVolumes?: readonly { name: string; comment?: string }[];
    /** Further compose services it waits for to be healthy (beside its migration and RabbitMQ). */
    waitsFor?: readonly string[];
  };
  k8s?: {
    config?: readonly Setting[];
    secrets?: readonly SecretKey[];
    /** Secret keys its migration (the `migrate` init container) needs beside DATABASE_URL and RABBITMQ_URL. */
    migrateSecrets?: readonly string[];
    resources?: Resources;
    volumes?: readonly ScratchVolume[];
  };
  /** By the catalogue's extra process name. */
  workers?: Readonly<Record<string, WorkerDeployment>>;
}

export type DeploymentDescription = Readonly<Record<string, AppDeployment>>;

const OPENAI_COMPOSE = [
  { name: "OPENAI_API_KEY", value: "${OPENAI_API_KEY:-}" },
  { name: "OPENAI_BASE_URL", value: "${OPENAI_BASE_URL:-}" },
];

/** Apple Root CA - G3, base64 DER (billing checks App Store payloads against it). */
const APPLE_ROOT_CA_G3 =
  "MIICQzCCAcmgAwIBAgIILcX8iNLFS5UwCgYIKoZIzj0EAwMwZzEbMBkGA1UEAwwSQXBwbGUgUm9vdCBDQSAtIEczMSYwJAYDVQQLDB1BcHBsZSBDZXJ0aWZpY2F0aW9uIEF1dGhvcml0eTETMBEGA1UECgwKQXBwbGUgSW5jLjELMAkGA1UEBhMCVVMwHhcNMTQwNDMwMTgxOTA2WhcNMzkwNDMwMTgxOTA2WjBnMRswGQYDVQQDDBJBcHBsZSBSb290IENBIC0gRzMxJjAkBgNVBAsMHUFwcGxlIENlcnRpZmljYXRpb24gQXV0aG9yaXR5MRMwEQYDVQQKDApBcHBsZSBJbmMuMQswCQYDVQQGEwJVUzB2MBAGByqGSM49AgEGBSuBBAAiA2IABJjpLz1AcqTtkyJygRMc3RCV8cWjTnHcFBbZDuWmBSp3ZHtfTjjTuxxEtX/1H7YyYl3J6YRbTzBPEVoA/VhYDKX1DyxNB0cTddqXl5dvMVztK517IDvYuVTZXpmkOlEKMaNCMEAwHQYDVR0OBBYEFLuw3qFYM4iapIqZ3r6966/ayySrMA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQDAgEGMAoGCCqGSM49BAMDA2gAMGUCMQCD6cHEFl4aXTQY2e3v9GwOAEZLuN+yRhHFD/3meoyhpmvOwgPUnPWTxnS4at+qIxUCMG1mihDK1A3UT82NQz60imOlM27jbdoXt2QfyFMm+YhidDkLF1vLUagM6BgD56KyKA==";

const REINDEX = "the reindex command, run in the search pod, reads the owners";

/** The gateway's own settings (its addresses of the services come from the catalogue). */
export const GATEWAY_DEPLOYMENT: AppDeployment = {
  egress: ["google", "smtp"],
  compose: {
    environment: [
      { name: "INTERNAL_UPLOAD_SECRET", value: "${INTERNAL_UPLOAD_SECRET:?set INTERNAL_UPLOAD_SECRET (at least 32 characters)}" },
      { name: "AUTH_SECRET", value: "${AUTH_SECRET:?set AUTH_SECRET (at least 32 characters)}" },
      { name: "BASE_URL", value: "${BASE_URL:-http://localhost:3000}" },
      {
        name: "WEB_APP_DIR",
        value: "/app/clients/web/dist",
        comment: "The web app, built into the gateway's image and served at /app/ on the API's origin (cookies without CORS).",
      },
      { name: "CLIENT_URL", value: "${CLIENT_URL:-http://localhost:3000/app}" },
      { name: "TRUSTED_ORIGINS", value: "${TRUSTED_ORIGINS:-http://localhost:5173}" },
      {
        name: "TRUST_PROXY",
        value: "${TRUST_PROXY:-false}",
        comment:
          "No proxy in front: the connection's address is the client's (rate limits, sign-in lockout, sessions). Behind a\n" +
          'reverse proxy, set the proxy\'s address or the number of hops (README "Client addresses").',
      },
    ],
  },
  k8s: {
    config: [
      { name: "BASE_URL", value: "https://study.example.com", comment: "Placeholder: an overlay sets the real public addresses per environment." },
      {
        name: "WEB_APP_DIR",
        value: "/app/clients/web/dist",
        comment: "The web app is in the gateway's image and served at /app/ on the API's origin (its cookies need no CORS).",
      },
      { name: "CLIENT_URL", value: "https://study.example.com/app" },
      { name: "TRUSTED_ORIGINS", value: "https://study.example.com" },
      {
        name: "TRUST_PROXY",
        value: "1",
        comment:
          "Which hops may say who the client is (X-Forwarded-For): the sign-in lockout, the rate limits and sessions use it.\n" +
          'Each overlay sets it for its ingress; "1" trusts the one proxy in front (the ingress controller) and no further.',
      },
    ],
    secrets: [
      { name: "AUTH_SECRET" },
      { name: "GOOGLE_CLIENT_ID", optional: true, comment: "Google sign-in is offered only when both keys exist in the Secret." },
      { name: "GOOGLE_CLIENT_SECRET", optional: true },
      {
        name: "SMTP_URL",
        optional: true,
        comment:
          "Verification and password-reset mail (smtps://user:pass@host:465). Without it the gateway writes mails as\n" +
          "files into MAIL_OUTBOX_DIR, which in a pod reaches nobody.",
      },
      {
        name: "INTERNAL_UPLOAD_SECRET",
        comment: "Signs the user id forwarded with streamed uploads to media and documents (same value as in their Secrets).",
      },
    ],
    migrateSecrets: ["AUTH_SECRET"],
    resources: { requests: { cpu: "100m", memory: "192Mi" }, limits: { cpu: "1", memory: "512Mi" } },
  },
};

/** The services', by catalogue name. */
export const DEPLOYMENT: DeploymentDescription = {
  media: {
    egress: ["object-storage", "web-downloads"],
    calls: [{ service: "courses", why: "an import's course is checked" }],
    callsComment: "Uploads check the course with the courses service.",
    httpComment:
      "The internal HTTP endpoint for the gateway: streamed uploads and stored files (plain HTTP, cluster-internal,\n" +
      "requests signed by the gateway only).",
    compose: {
      environment: [
        { name: "INTERNAL_UPLOAD_SECRET", value: "${INTERNAL_UPLOAD_SECRET:?set INTERNAL_UPLOAD_SECRET (at least 32 characters)}" },
        { name: "MEDIA_STORAGE_DIR", value: "/data/media", comment: "Files in the shared volume." },
        {
          name: "MEDIA_PUBLIC_BASE_URL",
          value: "${BASE_URL:-http://localhost:3000}/api/files",
          comment: "audioUrl/fileUrl point at the gateway's owner-scoped file route, absolute for clients on another origin.",
        },
      ],
      volumes: ["media-files:/data/media"],
      ownVolumes: [{ name: "media-files", comment: "Uploaded audio and attachments, shared by media (writes) and the workers (read, delete)." }],
    },
    k8s: {
      config: [
        {
          name: "MEDIA_DOWNLOAD_ALLOWLIST",
          value: "",
          comment:
            "Audio URLs and video pages are fetched from public addresses only (the SSRF policy of the downloader and yt-dlp;\n" +
            "the NetworkPolicy egress-web-downloads allows the same): no private host is allowed.",
        },
        {
          name: "MEDIA_S3_BUCKET",
          value: "study-media",
          comment: "Uploaded files must be visible to every media and media-worker pod: an S3-compatible bucket.",
        },
        { name: "MEDIA_S3_REGION", value: "us-east-1" },
        {
          name: "MEDIA_PUBLIC_BASE_URL",
          value: "https://study.example.com/api/files",
          comment:
            "audioUrl/fileUrl: the gateway's owner-scoped file route, absolute because the client runs on another\n" +
            "origin (a placeholder like the gateway's BASE_URL: an overlay sets the real address).",
        },
      ],
      secrets: [
        { name: "INTERNAL_UPLOAD_SECRET" },
        { name: "MEDIA_S3_ACCESS_KEY_ID", optional: true, comment: "S3 credentials (omit them to use the pod's IAM role / workload identity)." },
        { name: "MEDIA_S3_SECRET_ACCESS_KEY", optional: true },
      ],
    },
    workers: {
      "media-worker": {
        egress: ["object-storage", "openai", "web-downloads"],
        composeComment: "The import worker (pipeline): consumes RabbitMQ only; scale with `docker compose up --scale media-worker=N`.",
        terminationComment: "On SIGTERM running imports are aborted and their messages go back to the queue for another worker.",
        secrets: [
          { name: "MEDIA_S3_ACCESS_KEY_ID", optional: true, comment: "S3 credentials (omit them to use the pod's IAM role / workload identity)." },
          { name: "MEDIA_S3_SECRET_ACCESS_KEY", optional: true },
          {
            name: "OPENAI_API_KEY",
            optional: true,
            comment:
              "Transcription and summaries through an OpenAI-compatible API (OPENAI_BASE_URL in media-config for a\n" +
              "self-hosted Whisper server); without the key the worker stays offline (pocketsphinx, extractive summary).",
          },
        ],
        tmp: { sizeLimit: "2Gi", comment: "Per-job temporary folders: the downloaded audio (≤ 150 MB) and its speech WAV." },
      },
    },
  },
  study: {
    egress: ["openai"],
    calls: [
      { service: "courses", why: "a generation's course: its ownership and name" },
      { service: "media", why: "the notes material is generated from" },
      { service: "documents", why: "the documents' text material is generated from" },
    ],
    callsComment: "What a generation reads, as the user: courses (ownership, the course's name), media (notes), documents (text).",
    compose: {
      environment: [
        {
          ...OPENAI_COMPOSE[0],
          comment: "Without a key the offline generator serves; set OPENAI_API_KEY (and OPENAI_BASE_URL for a compatible server).",
        },
        OPENAI_COMPOSE[1],
        { name: "OPENAI_MODEL", value: "${OPENAI_MODEL:-gpt-4o-mini}" },
      ],
    },
    k8s: {
      config: [
        {
          name: "OPENAI_MODEL",
          value: "gpt-4o-mini",
          comment: "Offline generator unless the study-secrets Secret provides OPENAI_API_KEY (see k8s/README.md).",
        },
      ],
      secrets: [{ name: "OPENAI_API_KEY", optional: true }],
    },
  },
  search: {
    egress: ["meilisearch"],
    calls: [
      { service: "courses", why: REINDEX },
      { service: "media", why: REINDEX },
      { service: "study", why: REINDEX },
      { service: "calendar", why: REINDEX },
      { service: "documents", why: REINDEX },
      { service: "chat", why: REINDEX },
    ],
    callsComment: "The owners the reindex command reads, run in a search container: node services/search/dist/reindex.js [--user <id>].",
    compose: {
      environment: [
        {
          name: "SEARCH_ENGINE",
          value: "meilisearch",
          comment: "The index in the meilisearch service (SEARCH_ENGINE=embedded keeps it in search's PostgreSQL instead).",
        },
        { name: "MEILISEARCH_URL", value: "http://meilisearch:7700" },
        { name: "MEILISEARCH_API_KEY", value: "${MEILI_MASTER_KEY:?set MEILI_MASTER_KEY (at least 16 bytes)}" },
      ],
      waitsFor: ["meilisearch"],
    },
    k8s: {
      config: [
        {
          name: "SEARCH_ENGINE",
          value: "meilisearch",
          comment:
            'The index lives in Meilisearch (MEILISEARCH_URL and MEILISEARCH_API_KEY come from search-secrets); "embedded"\n' +
            "keeps it in search's own PostgreSQL instead.",
        },
        { name: "MEILISEARCH_INDEX", value: "search_records" },
      ],
      secrets: [
        { name: "MEILISEARCH_URL", comment: "The Meilisearch server (SEARCH_ENGINE=meilisearch in search-config) and its API key." },
        { name: "MEILISEARCH_API_KEY" },
      ],
    },
  },
  calendar: {
    egress: ["google"],
    calls: [
      { service: "courses", why: "an event's course is checked" },
      { service: "gateway", why: "IdentityService: the users' Google tokens" },
    ],
    callsComment:
      "An event's course is checked with the courses service; the users' Google tokens (Google Calendar sync and push)\n" +
      "come from the gateway's IdentityService.",
    k8s: {
      config: [
        {
          name: "GOOGLE_CALENDAR_API_URL",
          value: "https://www.googleapis.com/",
          comment:
            "Google Calendar sync and push: Google's API (the default, stated here because the NetworkPolicy egress-google\n" +
            "opens the way to it).",
        },
      ],
    },
  },
  documents: {
    egress: ["object-storage", "openai"],
    calls: [
      { service: "courses", why: "a document's course is checked" },
      { service: "calendar", why: "a syllabus's events are created" },
    ],
    callsComment: "Uploads check the course with the courses service; a syllabus's events are created in the calendar service.",
    httpComment:
      "The internal HTTP endpoint for the gateway: streamed uploads (plain HTTP, cluster-internal, requests signed by\n" + "the gateway only).",
    compose: {
      environment: [
        { name: "INTERNAL_UPLOAD_SECRET", value: "${INTERNAL_UPLOAD_SECRET:?set INTERNAL_UPLOAD_SECRET (at least 32 characters)}" },
        { name: "DOCUMENTS_STORAGE_DIR", value: "/data/documents", comment: "Files in the shared volume." },
        {
          ...OPENAI_COMPOSE[0],
          comment:
            "Keyword search only unless OPENAI_API_KEY is set (embeddings for semantic and hybrid search; OPENAI_BASE_URL\n" +
            "for a compatible server).",
        },
        OPENAI_COMPOSE[1],
        { name: "OPENAI_EMBEDDING_MODEL", value: "${OPENAI_EMBEDDING_MODEL:-text-embedding-3-small}" },
      ],
      volumes: ["documents-files:/data/documents"],
      ownVolumes: [{ name: "documents-files", comment: "Uploaded documents, shared by documents (writes, reads syllabi) and its workers (read)." }],
    },
    k8s: {
      config: [
        {
          name: "DOCUMENTS_S3_BUCKET",
          value: "study-documents",
          comment: "Uploaded documents must be visible to every documents and documents-worker pod: an S3-compatible bucket.",
        },
        { name: "DOCUMENTS_S3_REGION", value: "us-east-1" },
        {
          name: "DOCUMENTS_WORK_DIR",
          value: "/var/tmp/documents",
          comment:
            "Per-document temporary files (the document, page images for OCR): the `work` emptyDir of both Deployments\n" +
            "(the root filesystem is read-only).",
        },
        {
          name: "OPENAI_EMBEDDING_MODEL",
          value: "text-embedding-3-small",
          comment:
            "Keyword search only unless documents-secrets provides OPENAI_API_KEY (embeddings for semantic and hybrid\n" +
            "search; OPENAI_BASE_URL for a compatible server).",
        },
      ],
      secrets: [
        { name: "INTERNAL_UPLOAD_SECRET" },
        { name: "DOCUMENTS_S3_ACCESS_KEY_ID", optional: true, comment: "S3 credentials (omit them to use the pod's IAM role / workload identity)." },
        { name: "DOCUMENTS_S3_SECRET_ACCESS_KEY", optional: true },
        {
          name: "OPENAI_API_KEY",
          optional: true,
          comment: "Embeddings for semantic and hybrid search (without it, search is keyword only and says so).",
        },
      ],
      resources: {
        requests: { cpu: "100m", memory: "192Mi" },
        limits: { cpu: "1", memory: "768Mi" },
        comment: "A syllabus is extracted in this process (OCR included): more memory than a plain gRPC service.",
      },
      volumes: [
        {
          name: "work",
          mountPath: "/var/tmp/documents",
          sizeLimit: "1Gi",
          comment: "DOCUMENTS_WORK_DIR: a syllabus is read here before its upload is answered (the file, OCR page images).",
        },
      ],
    },
    workers: {
      "documents-worker": {
        egress: ["object-storage", "openai"],
        composeComment:
          "The extraction worker (text, OCR): consumes RabbitMQ only; scale with\n" +
          "`docker compose up --scale documents-worker=N`. Its per-document temporary files go to the /tmp tmpfs.",
        terminationComment: "On SIGTERM running extractions are aborted and their messages go back to the queue for another worker.",
        secrets: [
          {
            name: "DOCUMENTS_S3_ACCESS_KEY_ID",
            optional: true,
            comment: "S3 credentials (omit them to use the pod's IAM role / workload identity).",
          },
          { name: "DOCUMENTS_S3_SECRET_ACCESS_KEY", optional: true },
          {
            name: "OPENAI_API_KEY",
            optional: true,
            comment: "Embeddings of the extracted text's chunks (without it, search is keyword only and says so).",
          },
        ],
        volumes: [
          {
            name: "work",
            mountPath: "/var/tmp/documents",
            sizeLimit: "2Gi",
            comment: "DOCUMENTS_WORK_DIR: per-document temporary folders (the document, ≤ 150 MB, and one OCR page image at a\ntime).",
          },
        ],
      },
    },
  },
  billing: {
    egress: ["stripe"],
    compose: {
      environment: [
        {
          name: "STRIPE_SECRET_KEY",
          value: "${STRIPE_SECRET_KEY:?set STRIPE_SECRET_KEY (a Stripe secret key, sk_live_… with NODE_ENV=production)}",
          comment: "Stripe itself (STRIPE_API_URL unset): its webhooks reach billing through the gateway's /api/billing/webhook.",
        },
        {
          name: "STRIPE_WEBHOOK_SECRET",
          value: "${STRIPE_WEBHOOK_SECRET:?set STRIPE_WEBHOOK_SECRET (the webhook endpoint's signing secret, whsec_…)}",
        },
        {
          name: "APP_STORE_BUNDLE_ID",
          value: "${APP_STORE_BUNDLE_ID:-com.studyservice.app}",
          comment: "App Store purchases and notifications (APP_STORE_APP_APPLE_ID is required to accept Production data).",
        },
        { name: "APP_STORE_APP_APPLE_ID", value: "${APP_STORE_APP_APPLE_ID:-}" },
        { name: "APP_STORE_ENVIRONMENTS", value: "${APP_STORE_ENVIRONMENTS:-Sandbox}" },
        {
          name: "APP_STORE_ROOT_CERTIFICATES",
          value: APPLE_ROOT_CA_G3,
          comment: "Store payloads must chain to Apple Root CA - G3 (base64 DER; SHA-256 63:34:3A:BF:…:3E:91:79, apple.com/certificateauthority).",
        },
      ],
    },
    k8s: {
      config: [
        {
          name: "STRIPE_PLANS",
          value: "pro_monthly=price_pro_monthly,pro_yearly=price_pro_yearly",
          comment: "Stripe itself: STRIPE_API_URL stays unset. Plan names and their Stripe price ids (an overlay sets the real ids).",
        },
        {
          name: "APP_STORE_BUNDLE_ID",
          value: "com.studyservice.app",
          comment:
            "App Store purchases of this app are accepted from these environments only. Production data needs the app's\n" +
            "Apple ID too: an overlay adds APP_STORE_APP_APPLE_ID (billing refuses to start without it) and the real bundle id.",
        },
        { name: "APP_STORE_ENVIRONMENTS", value: "Production" },
        {
          name: "APP_STORE_ROOT_CERTIFICATES",
          value: APPLE_ROOT_CA_G3,
          comment:
            "Store payloads must chain to these roots (base64 DER, comma-separated): Apple Root CA - G3, SHA-256\n" +
            "63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79\n" +
            "(https://www.apple.com/certificateauthority/).",
        },
      ],
      secrets: [
        {
          name: "STRIPE_SECRET_KEY",
          comment: "Stripe's API (STRIPE_API_URL unset) and the signing secret of its webhook (<BASE_URL>/api/billing/webhook).",
        },
        { name: "STRIPE_WEBHOOK_SECRET" },
      ],
    },
  },
  chat: {
    egress: ["openai"],
    calls: [
      { service: "courses", why: "course names and ownership" },
      { service: "media", why: "the notes questions are answered from, and their ownership" },
      { service: "documents", why: "the documents questions are answered from, and their ownership" },
    ],
    callsComment: "The material chat answers from: course names and ownership, notes, documents' text.",
    compose: {
      environment: [
        {
          ...OPENAI_COMPOSE[0],
          comment: "Without a key the offline engine quotes the material; set OPENAI_API_KEY (and OPENAI_BASE_URL) for a model.",
        },
        OPENAI_COMPOSE[1],
        { name: "OPENAI_MODEL", value: "${OPENAI_MODEL:-gpt-4o-mini}" },
        { name: "CHAT_QUESTIONS_PER_HOUR", value: "${CHAT_QUESTIONS_PER_HOUR:-50}" },
      ],
    },
    k8s: {
      config: [
        {
          name: "OPENAI_MODEL",
          value: "gpt-4o-mini",
          comment: "Offline quoting engine unless the chat-secrets Secret provides OPENAI_API_KEY (see k8s/README.md).",
        },
        { name: "CHAT_QUESTIONS_PER_HOUR", value: "50", comment: "Questions per user per hour (the spec's recommendation for AI requests)." },
      ],
      secrets: [{ name: "OPENAI_API_KEY", optional: true }],
    },
  },
};
