import { courses as api, indexing } from "@study/contracts";
import { prismaOptions } from "@study/db";
import type { ServiceDefinition, ServiceConfig } from "@study/runtime";
import { PostgresCourseRepository } from "./adapters/db/postgres-course-repository";
import { coursesGrpcService } from "./adapters/grpc/courses-grpc-service";
import { searchableSourceGrpcService } from "@study/grpc";
import { BatchGetCourses } from "./application/batch-get-courses";
import { CreateCourse } from "./application/create-course";
import { DeleteCourse } from "./application/delete-course";
import { GetCourse } from "./application/get-course";
import { ListCourses } from "./application/list-courses";
import { ListSearchables } from "./application/list-searchables";
import { UpdateCourse } from "./application/update-course";
import { PrismaClient } from "./generated/prisma/client";
import { coursesMigrations } from "./migrations";

/** The composition of the courses service: adapters → use cases → gRPC. */
export const coursesService: ServiceDefinition<PrismaClient, ServiceConfig> = {
  ...coursesMigrations,
  createDatabase: (_config, pool) => new PrismaClient(prismaOptions(pool)),
  async compose({ db, pool, logger }) {
    const repository = new PostgresCourseRepository(db, pool);
    const getCourse = new GetCourse(repository);
    const implementation = coursesGrpcService(
      {
        createCourse: new CreateCourse(repository),
        getCourse,
        listCourses: new ListCourses(repository),
        updateCourse: new UpdateCourse(repository, getCourse),
        deleteCourse: new DeleteCourse(repository, getCourse),
        batchGetCourses: new BatchGetCourses(repository),
      },
      logger,
    );
    return [
      { definition: api.CoursesServiceService, implementation },
      { definition: indexing.SearchableSourceServiceService, implementation: searchableSourceGrpcService(new ListSearchables(repository), logger) },
    ];
  },
};
