import type {
  NotificationPage,
  NotificationRepository,
  TransactionalNotificationRepository,
} from "../../src/application/ports/notification-repository.port";
import { isPastRetention, type Notification } from "../../src/domain/notification";

interface StoredNotification {
  notification: Notification;
  idempotencyKey?: string;
}

type Rows = Map<string, StoredNotification>;

/** Works on a copy of the rows; nothing it writes is visible outside until it commits. */
export class InMemoryTransaction {
  constructor(
    readonly rows: Rows,
    private readonly publish: (rows: Rows) => void,
  ) {}

  commit(): void {
    this.publish(this.rows);
  }
}

const newestFirst = (a: Notification, b: Notification) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** The repository port over a Map, with transactions that commit by swapping the rows in. */
export class InMemoryNotificationRepository implements TransactionalNotificationRepository<InMemoryTransaction> {
  constructor(private rows: Rows = new Map()) {}

  begin(): InMemoryTransaction {
    const copy = new Map([...this.rows].map(([id, row]) => [id, { ...row }]));
    return new InMemoryTransaction(copy, (rows) => {
      this.rows = rows;
    });
  }

  forTransaction(tx: InMemoryTransaction): NotificationRepository {
    return new InMemoryNotificationRepository(tx.rows);
  }

  /** Every stored notification, newest first. */
  all(): Notification[] {
    return [...this.rows.values()].map((row) => ({ ...row.notification })).sort(newestFirst);
  }

  async insert(notification: Notification): Promise<void> {
    this.rows.set(notification.id, { notification: { ...notification } });
  }

  async insertOnce(notification: Notification, idempotencyKey: string): Promise<Notification> {
    const existing = [...this.rows.values()].find((row) => row.notification.userId === notification.userId && row.idempotencyKey === idempotencyKey);
    if (existing) return { ...existing.notification };
    this.rows.set(notification.id, { notification: { ...notification }, idempotencyKey });
    return { ...notification };
  }

  async findOwned(userId: string, notificationId: string): Promise<Notification | null> {
    const row = this.rows.get(notificationId);
    return row && row.notification.userId === userId ? { ...row.notification } : null;
  }

  async listOwned(userId: string, query: { limit: number; includeRead: boolean }): Promise<NotificationPage> {
    const matching = this.all().filter((n) => n.userId === userId && (query.includeRead || !n.read));
    return { notifications: matching.slice(0, query.limit), total: matching.length };
  }

  async countUnread(userId: string): Promise<number> {
    return this.all().filter((n) => n.userId === userId && !n.read).length;
  }

  async saveReadState(notification: Notification): Promise<void> {
    const row = this.rows.get(notification.id);
    if (row && row.notification.userId === notification.userId) {
      row.notification = { ...row.notification, read: notification.read, updatedAt: notification.updatedAt };
    }
  }

  async markAllRead(userId: string, at: Date): Promise<number> {
    let marked = 0;
    for (const row of this.rows.values()) {
      if (row.notification.userId !== userId || row.notification.read) continue;
      row.notification = { ...row.notification, read: true, updatedAt: at };
      marked += 1;
    }
    return marked;
  }

  async deleteReadCreatedBefore(cutoff: Date): Promise<number> {
    const expired = [...this.rows.values()].filter((row) => isPastRetention(row.notification, cutoff));
    for (const row of expired) this.rows.delete(row.notification.id);
    return expired.length;
  }
}
