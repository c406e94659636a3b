import { servicePrismaConfig } from "../../libs/db/src/prisma-config";

export default servicePrismaConfig("prisma/schema.prisma");
