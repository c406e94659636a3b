import type { NotificationPage, TransactionalNotificationRepository } from "../../application/ports/notification-repository.port";
import type { Notification } from "../../domain/notification";
import type { Prisma } from "../../generated/prisma/client";

/** The columns the domain knows; the idempotency key stays a storage concern. */
const NOTIFICATION_FIELDS = {
  id: true,
  userId: true,
  type: true,
  content: true,
  read: true,
  createdAt: true,
  updatedAt: true,
} as const satisfies Prisma.NotificationSelect;

/** Works on the PrismaClient or, through forTransaction, on a transaction client opened elsewhere. */
export class PrismaNotificationRepository implements TransactionalNotificationRepository<Prisma.TransactionClient> {
  constructor(private readonly db: Prisma.TransactionClient) {}

  forTransaction(tx: Prisma.TransactionClient): PrismaNotificationRepository {
    return new PrismaNotificationRepository(tx);
  }

  async insert(notification: Notification): Promise<void> {
    await this.db.notification.create({ data: notification });
  }

  async insertOnce(notification: Notification, idempotencyKey: string): Promise<Notification> {
    // ON CONFLICT DO NOTHING: a concurrent repeat waits for the first insert to commit instead of failing.
    await this.db.notification.createMany({ data: [{ ...notification, idempotencyKey }], skipDuplicates: true });
    return this.db.notification.findUniqueOrThrow({
      where: { userId_idempotencyKey: { userId: notification.userId, idempotencyKey } },
      select: NOTIFICATION_FIELDS,
    });
  }

  findOwned(userId: string, notificationId: string): Promise<Notification | null> {
    return this.db.notification.findFirst({ where: { id: notificationId, userId }, select: NOTIFICATION_FIELDS });
  }

  /**
   * The page and its total in one statement (`count(*) over ()`), so they come from one snapshot: read apart, a
   * notification arriving between the two reads made `total` count one the page did not show. The list has no
   * offset, so an empty page means a total of 0.
   */
  async listOwned(userId: string, query: { limit: number; includeRead: boolean }): Promise<NotificationPage> {
    const rows = await this.db.$queryRaw<(Notification & { total: bigint })[]>`
      SELECT id::text AS id, user_id AS "userId", type::text AS type, content, read,
             created_at AS "createdAt", updated_at AS "updatedAt", count(*) OVER () AS total
      FROM notification
      WHERE user_id = ${userId} AND (${query.includeRead}::boolean OR NOT read)
      ORDER BY created_at DESC, id DESC
      LIMIT ${query.limit}`;
    return { notifications: rows.map(({ total: _total, ...notification }) => notification), total: rows.length > 0 ? Number(rows[0].total) : 0 };
  }

  countUnread(userId: string): Promise<number> {
    return this.db.notification.count({ where: { userId, read: false } });
  }

  async saveReadState(notification: Notification): Promise<void> {
    await this.db.notification.updateMany({
      where: { id: notification.id, userId: notification.userId },
      data: { read: notification.read, updatedAt: notification.updatedAt },
    });
  }

  async markAllRead(userId: string, at: Date): Promise<number> {
    const { count } = await this.db.notification.updateMany({ where: { userId, read: false }, data: { read: true, updatedAt: at } });
    return count;
  }

  async deleteReadCreatedBefore(cutoff: Date): Promise<number> {
    const { count } = await this.db.notification.deleteMany({ where: { read: true, createdAt: { lt: cutoff } } });
    return count;
  }
}
